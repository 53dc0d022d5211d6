package dev.tally.core.canonical;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tally.core.canonical.CanonicalizationException.Code;
import java.util.Arrays;
import java.util.Map;

/**
 * A deep copy of a tree that applies the checks of {@link Jcs} on the way: depth, lone surrogates,
 * non-finite and out-of-range numbers, non-JSON nodes. Numbers are rebuilt as {@link Jcs#parse}
 * would build them; immutable value nodes are shared. Recursion is bounded by the depth limit.
 */
final class ValidatingCopy {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private final int maxDepth;
  private final String prefix;
  private String[] names = new String[8];
  private int[] indexes = new int[8];
  private int depth;

  private ValidatingCopy(int maxDepth, String prefix) {
    this.maxDepth = maxDepth;
    this.prefix = prefix;
  }

  /**
   * The validated copy of {@code node}, which sits at {@code pointer} below {@code openLevels}
   * enclosing containers (0 for a root); errors name pointers below {@code pointer}.
   */
  static JsonNode of(JsonNode node, int maxDepth, String pointer, int openLevels) {
    return new ValidatingCopy(maxDepth, pointer).copy(node, openLevels);
  }

  private JsonNode copy(JsonNode n, int level) {
    switch (n.getNodeType()) {
      case OBJECT:
        checkDepth(level);
        ObjectNode o = NODES.objectNode();
        for (Map.Entry<String, JsonNode> e : n.properties()) {
          String name = e.getKey();
          if (Surrogates.lone(name) >= 0) {
            throw new CanonicalizationException(
                Code.LONE_SURROGATE, pointer(), "object member name contains a lone surrogate");
          }
          push(name, 0);
          o.set(name, copy(e.getValue(), level + 1));
          depth--;
        }
        return o;
      case ARRAY:
        checkDepth(level);
        ArrayNode a = NODES.arrayNode(n.size());
        for (int i = 0, size = n.size(); i < size; i++) {
          push(null, i);
          a.add(copy(n.get(i), level + 1));
          depth--;
        }
        return a;
      case STRING:
        int at = Surrogates.lone(n.textValue());
        if (at >= 0) {
          throw new CanonicalizationException(
              Code.LONE_SURROGATE,
              pointer(),
              "string contains a lone surrogate (UTF-16 unit " + at + ")");
        }
        return n;
      case NUMBER:
        int problem = JsonNumbers.check(n);
        if (problem != JsonNumbers.OK) {
          throw JsonNumbers.error(problem, pointer());
        }
        return JsonNumbers.node(JsonNumbers.value(n));
      case BOOLEAN:
      case NULL:
        return n;
      default:
        throw new CanonicalizationException(
            Code.MALFORMED, pointer(), "a " + n.getNodeType() + " node is not a JSON value");
    }
  }

  private void checkDepth(int level) {
    if (level >= maxDepth) {
      throw new CanonicalizationException(
          Code.TOO_DEEP, pointer(), "nesting deeper than " + maxDepth + " levels");
    }
  }

  private void push(String name, int index) {
    if (depth == names.length) {
      names = Arrays.copyOf(names, depth * 2);
      indexes = Arrays.copyOf(indexes, depth * 2);
    }
    names[depth] = name;
    indexes[depth++] = index;
  }

  private String pointer() {
    return prefix + JsonPointers.of(names, indexes, depth);
  }
}
