package dev.tally.core.canonical;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tally.core.canonical.CanonicalizationException.Code;
import dev.tally.core.contract.FingerprintRules;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@link FingerprintRules} with their paths parsed and default values validated, ready to apply.
 * Null tries mean "no such rule".
 */
final class CompiledRules {
  final FingerprintRules source;
  final PathTrie include;
  final PathTrie exclude;
  final PathTrie secrets;
  final List<Default> defaults;

  private CompiledRules(FingerprintRules source, int maxDepth) {
    this.source = source;
    this.include = PathTrie.of(source.include(), "include");
    this.exclude = PathTrie.of(source.exclude(), "exclude");
    this.secrets = PathTrie.of(source.secrets(), "secrets");
    List<Default> ds = new ArrayList<>();
    // Sorted so that a default inside another default's value is applied after it.
    for (Map.Entry<String, JsonNode> e : new TreeMap<>(source.defaults()).entrySet()) {
      ds.add(Default.of(e.getKey(), e.getValue(), maxDepth));
    }
    this.defaults = List.copyOf(ds);
  }

  static CompiledRules compile(FingerprintRules rules, int maxDepth) {
    return new CompiledRules(rules, maxDepth);
  }

  boolean isEmpty() {
    return include == null && exclude == null && secrets == null && defaults.isEmpty();
  }

  /** A value materialized at a path when the path is absent. */
  static final class Default {
    private final List<String> tokens;
    private final JsonNode value;

    private Default(List<String> tokens, JsonNode value) {
      this.tokens = tokens;
      this.value = value;
    }

    static Default of(String pointer, JsonNode value, int maxDepth) {
      List<String> tokens = PathTrie.tokens(pointer, "defaults");
      if (value == null) {
        throw new IllegalArgumentException(
            "fingerprint rules: defaults: " + pointer + " has no value");
      }
      if (tokens.size() > maxDepth) {
        throw new CanonicalizationException(
            Code.TOO_DEEP, pointer, "default path deeper than " + maxDepth + " levels");
      }
      return new Default(tokens, ValidatingCopy.of(value, maxDepth, pointer, tokens.size()));
    }

    /**
     * Sets the value at the path in {@code root} if nothing is there, creating missing parent
     * objects. Does nothing if a parent is a scalar or names a missing array element.
     */
    void materialize(ObjectNode root) {
      JsonNode node = root;
      int last = tokens.size() - 1;
      for (int i = 0; i < last; i++) {
        String t = tokens.get(i);
        JsonNode child;
        if (node.isObject()) {
          child = node.get(t);
          if (child == null) {
            child = ((ObjectNode) node).putObject(t);
          }
        } else {
          int index = JsonPointers.arrayIndex(t);
          child = index >= 0 && index < node.size() ? node.get(index) : null;
        }
        if (child == null || !child.isContainerNode()) {
          return;
        }
        node = child;
      }
      if (node.isObject() && node.get(tokens.get(last)) == null) {
        ((ObjectNode) node).set(tokens.get(last), value.deepCopy());
      }
    }
  }
}
