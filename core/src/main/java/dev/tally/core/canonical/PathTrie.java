package dev.tally.core.canonical;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.UnaryOperator;

/**
 * A set of RFC 6901 paths as a tree of reference tokens, applied to a JSON tree in one walk. A
 * token addresses an object member by name, or an array element by index ({@code "-"} and malformed
 * indexes address nothing).
 */
final class PathTrie {
  private final Map<String, PathTrie> children = new LinkedHashMap<>();
  private boolean terminal;

  private PathTrie() {}

  /**
   * The trie of {@code pointers}, or null if there are none. Throws {@link
   * IllegalArgumentException} naming {@code rule} and the path if one is not a JSON pointer or is
   * the root pointer {@code ""}.
   */
  static PathTrie of(List<String> pointers, String rule) {
    if (pointers.isEmpty()) {
      return null;
    }
    PathTrie root = new PathTrie();
    for (String pointer : pointers) {
      PathTrie t = root;
      for (String token : tokens(pointer, rule)) {
        t = t.children.computeIfAbsent(token, k -> new PathTrie());
      }
      t.terminal = true;
    }
    return root;
  }

  /** The tokens of one rule path, checked as {@link #of} describes. */
  static List<String> tokens(String pointer, String rule) {
    List<String> tokens;
    try {
      tokens = JsonPointers.parse(pointer);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("fingerprint rules: " + rule + ": " + e.getMessage(), e);
    }
    if (tokens.isEmpty()) {
      throw new IllegalArgumentException(
          "fingerprint rules: "
              + rule
              + ": path \"\" addresses the whole arguments object (expected: a member path such"
              + " as /name)");
    }
    return tokens;
  }

  boolean terminal() {
    return terminal;
  }

  /** The sub-trie below {@code token}, or null. */
  PathTrie child(String token) {
    return children.get(token);
  }

  /**
   * A new tree with only the addressed values of {@code node} and their ancestors, or null if no
   * path exists in it. Selected values are shared, not copied. Array elements off every path are
   * replaced by {@code null} so the selected ones keep their positions.
   */
  JsonNode select(JsonNode node) {
    if (terminal) {
      return node;
    }
    if (node.isObject()) {
      ObjectNode out = null;
      for (Map.Entry<String, PathTrie> e : children.entrySet()) {
        JsonNode v = node.get(e.getKey());
        JsonNode s = v == null ? null : e.getValue().select(v);
        if (s != null) {
          if (out == null) {
            out = JsonNodeFactory.instance.objectNode();
          }
          out.set(e.getKey(), s);
        }
      }
      return out;
    }
    if (node.isArray()) {
      TreeMap<Integer, JsonNode> selected = new TreeMap<>();
      for (Map.Entry<String, PathTrie> e : children.entrySet()) {
        int i = JsonPointers.arrayIndex(e.getKey());
        JsonNode s = i < 0 || i >= node.size() ? null : e.getValue().select(node.get(i));
        if (s != null) {
          selected.put(i, s);
        }
      }
      if (selected.isEmpty()) {
        return null;
      }
      ArrayNode out = JsonNodeFactory.instance.arrayNode();
      for (Map.Entry<Integer, JsonNode> e : selected.entrySet()) {
        while (out.size() < e.getKey()) {
          out.addNull();
        }
        out.add(e.getValue());
      }
      return out;
    }
    return null;
  }

  /** Removes the addressed values from {@code node} (later array elements move up). */
  void remove(JsonNode node) {
    if (node.isObject()) {
      ObjectNode o = (ObjectNode) node;
      for (Map.Entry<String, PathTrie> e : children.entrySet()) {
        PathTrie t = e.getValue();
        if (t.terminal) {
          o.remove(e.getKey());
        } else {
          JsonNode v = o.get(e.getKey());
          if (v != null && v.isContainerNode()) {
            t.remove(v);
          }
        }
      }
    } else if (node.isArray()) {
      ArrayNode a = (ArrayNode) node;
      List<Integer> doomed = new ArrayList<>();
      for (Map.Entry<String, PathTrie> e : children.entrySet()) {
        int i = JsonPointers.arrayIndex(e.getKey());
        if (i < 0 || i >= a.size()) {
          continue;
        }
        if (e.getValue().terminal) {
          doomed.add(i);
        } else if (a.get(i).isContainerNode()) {
          e.getValue().remove(a.get(i));
        }
      }
      doomed.sort(null);
      for (int k = doomed.size() - 1; k >= 0; k--) {
        a.remove(doomed.get(k).intValue());
      }
    }
  }

  /** Replaces each addressed value {@code v} of {@code node} by {@code f(v)}. */
  void replace(JsonNode node, UnaryOperator<JsonNode> f) {
    for (Map.Entry<String, PathTrie> e : children.entrySet()) {
      PathTrie t = e.getValue();
      if (node.isObject()) {
        JsonNode v = node.get(e.getKey());
        if (v != null) {
          if (t.terminal) {
            ((ObjectNode) node).set(e.getKey(), f.apply(v));
          } else {
            t.replace(v, f);
          }
        }
      } else if (node.isArray()) {
        int i = JsonPointers.arrayIndex(e.getKey());
        if (i >= 0 && i < node.size()) {
          if (t.terminal) {
            ((ArrayNode) node).set(i, f.apply(node.get(i)));
          } else {
            t.replace(node.get(i), f);
          }
        }
      }
    }
  }
}
