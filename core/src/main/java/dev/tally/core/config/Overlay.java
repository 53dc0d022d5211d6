package dev.tally.core.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Writes environment and flag overrides into the parsed file tree before it is validated, so an
 * overridden value is checked exactly like a value from the file, and its messages say where it
 * came from.
 */
final class Overlay {
  private Overlay() {}

  static void apply(ObjectNode root, ConfigOverrides overrides, Problems problems) {
    applyEnv(root, ConfigKeys.ENV_KEYS, overrides, problems);
    reportUnknownVariables(overrides.envMap(), problems);
    for (Map.Entry<String, String> f : overrides.flags().entrySet()) {
      set(root, f.getKey(), f.getValue(), "flag " + f.getKey(), problems);
    }
  }

  /** Sets every key in {@code paths} whose environment variable is set. */
  static void applyEnv(
      ObjectNode root, List<String> paths, ConfigOverrides overrides, Problems problems) {
    for (String path : paths) {
      String name = ConfigKeys.envName(path);
      String value = overrides.env(name);
      if (value != null) {
        set(root, path, value, "env " + name, problems);
      }
    }
  }

  private static void reportUnknownVariables(Map<String, String> env, Problems problems) {
    List<String> known = new ArrayList<>();
    for (String path : ConfigKeys.ENV_KEYS) {
      known.add(ConfigKeys.envName(path));
    }
    for (String name : new TreeSet<>(env.keySet())) {
      if (known.contains(name) || env.get(name).isEmpty()) {
        continue;
      }
      for (String prefix : ConfigKeys.CORE_ENV_PREFIXES) {
        if (name.startsWith(prefix)) {
          problems.addRaw(
              "env "
                  + Problems.sanitize(name)
                  + ": unknown variable for a core key (expected one of: "
                  + String.join(", ", known)
                  + ")");
          break;
        }
      }
    }
  }

  private static void set(
      ObjectNode root, String path, String value, String origin, Problems problems) {
    String[] segments = path.split("\\.", -1);
    ObjectNode parent = root;
    for (int i = 0; i < segments.length; i++) {
      if (segments[i].isEmpty()) {
        problems.addRaw(
            origin + ": " + Problems.sanitize(path) + " is not a key path (expected: like a.b.c)");
        return;
      }
      if (i == segments.length - 1) {
        break;
      }
      JsonNode child = parent.get(segments[i]);
      if (child == null || child.isNull()) {
        parent = parent.putObject(segments[i]);
      } else if (child.isObject()) {
        parent = (ObjectNode) child;
      } else {
        return; // the file's own value is reported as "expected: a mapping" by the validator
      }
    }
    parent.set(segments[segments.length - 1], TextNode.valueOf(value));
    problems.origin(path, origin);
  }
}
