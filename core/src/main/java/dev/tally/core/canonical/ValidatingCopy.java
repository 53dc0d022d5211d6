package dev.tally.core.canonical;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tally.core.canonical.CanonicalizationException.Code;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * A deep copy of a tree that applies the checks of {@link Jcs} on the way: depth, lone surrogates,
 * non-finite and out-of-range numbers, non-JSON nodes. Numbers are rebuilt as {@link Jcs#parse}
 * would build them, keeping their exact values ({@link JsonNumbers}); immutable value nodes are
 * shared. Iterative, like the reader and the writer.
 */
final class ValidatingCopy {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private final int maxDepth;
  private final int openLevels;
  private final String prefix;

  // Open containers: the source, its copy, and the member or element being copied.
  private JsonNode[] sources = new JsonNode[8];
  private JsonNode[] copies = new JsonNode[8];
  private final List<Iterator<Map.Entry<String, JsonNode>>> members = new ArrayList<>();
  private String[] names = new String[8];
  private int[] indexes = new int[8];
  private int depth;

  private ValidatingCopy(int maxDepth, String prefix, int openLevels) {
    this.maxDepth = maxDepth;
    this.prefix = prefix;
    this.openLevels = openLevels;
  }

  /**
   * The validated copy of {@code node}, which sits at {@code pointer} below {@code openLevels}
   * enclosing containers (0 for a root); errors name pointers below {@code pointer}.
   */
  static JsonNode of(JsonNode node, int maxDepth, String pointer, int openLevels) {
    return new ValidatingCopy(maxDepth, pointer, openLevels).copy(node);
  }

  private JsonNode copy(JsonNode root) {
    if (!root.isContainerNode()) {
      return scalar(root);
    }
    JsonNode rootCopy = open(root);
    while (depth > 0) {
      int d = depth - 1;
      JsonNode source = sources[d];
      JsonNode v;
      if (source.isObject()) {
        Iterator<Map.Entry<String, JsonNode>> it = members.get(d);
        if (!it.hasNext()) {
          close();
          continue;
        }
        Map.Entry<String, JsonNode> e = it.next();
        if (Surrogates.lone(e.getKey()) >= 0) {
          throw new CanonicalizationException(
              Code.LONE_SURROGATE, pointer(d), "object member name contains a lone surrogate");
        }
        names[d] = e.getKey();
        v = e.getValue();
      } else {
        int i = ++indexes[d];
        if (i == source.size()) {
          close();
          continue;
        }
        v = source.get(i);
      }
      JsonNode c = v.isContainerNode() ? open(v) : scalar(v);
      if (source.isObject()) {
        ((ObjectNode) copies[d]).set(names[d], c);
      } else {
        ((ArrayNode) copies[d]).add(c);
      }
    }
    return rootCopy;
  }

  private JsonNode open(JsonNode source) {
    if (openLevels + depth >= maxDepth) {
      throw new CanonicalizationException(
          Code.TOO_DEEP, pointer(depth), "nesting deeper than " + maxDepth + " levels");
    }
    if (depth == sources.length) {
      int n = depth * 2;
      sources = Arrays.copyOf(sources, n);
      copies = Arrays.copyOf(copies, n);
      names = Arrays.copyOf(names, n);
      indexes = Arrays.copyOf(indexes, n);
    }
    JsonNode copy = source.isObject() ? NODES.objectNode() : NODES.arrayNode(source.size());
    sources[depth] = source;
    copies[depth] = copy;
    names[depth] = null;
    indexes[depth] = -1;
    Iterator<Map.Entry<String, JsonNode>> it =
        source.isObject() ? source.properties().iterator() : null;
    if (members.size() == depth) {
      members.add(it);
    } else {
      members.set(depth, it);
    }
    depth++;
    return copy;
  }

  private void close() {
    depth--;
    sources[depth] = null;
    copies[depth] = null;
    members.set(depth, null);
  }

  private JsonNode scalar(JsonNode n) {
    switch (n.getNodeType()) {
      case STRING:
        int at = Surrogates.lone(n.textValue());
        if (at >= 0) {
          throw new CanonicalizationException(
              Code.LONE_SURROGATE,
              pointer(depth),
              "string contains a lone surrogate (UTF-16 unit " + at + ")");
        }
        return n;
      case NUMBER:
        int problem = JsonNumbers.check(n);
        if (problem != JsonNumbers.OK) {
          throw JsonNumbers.error(problem, pointer(depth));
        }
        return JsonNumbers.copy(n);
      case BOOLEAN:
      case NULL:
        return n;
      default:
        throw new CanonicalizationException(
            Code.MALFORMED, pointer(depth), "a " + n.getNodeType() + " node is not a JSON value");
    }
  }

  /** The pointer of the member or element being copied in each of the first {@code levels}. */
  private String pointer(int levels) {
    return prefix + JsonPointers.of(names, indexes, levels);
  }
}
