package dev.tally.core.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Typed, validating read access to one mapping of the configuration file. Problems are collected,
 * not thrown: every read returns the default on a bad value and records a message naming the key
 * path, the value and what was expected; {@link #throwIfInvalid(String)} throws them all at once.
 * Children from {@link #section(String)} share the parent's problems.
 *
 * <p>Adapters validate their own sections ({@code sidecar:}, {@code filter:} …) with this class so
 * that every message reads the same: {@code ConfigSection.of("sidecar", node)}, {@link #allowKeys},
 * reads, then {@link #throwIfInvalid(String)}.
 */
public final class ConfigSection {
  private static final String DURATION_EXAMPLES = "like 30s, 10m, 24h";

  private final String path;
  private final JsonNode node;
  private final Problems problems;

  private ConfigSection(String path, JsonNode node, Problems problems) {
    this.path = path;
    this.node = node == null ? MissingNode.getInstance() : node;
    this.problems = problems;
  }

  /** A standalone section at {@code path} (e.g. {@code sidecar}); {@code node} may be null. */
  public static ConfigSection of(String path, JsonNode node) {
    ConfigSection s = new ConfigSection(path, node, new Problems());
    s.requireMapping();
    return s;
  }

  static ConfigSection root(JsonNode node, Problems problems) {
    return new ConfigSection("", node, problems);
  }

  /** The key path of this section ({@code tools.create_ticket}). */
  public String path() {
    return path;
  }

  /** The key path of {@code key} in this section. */
  public String path(String key) {
    return path.isEmpty() ? key : path + '.' + key;
  }

  /** Whether this section appears in the configuration at all. */
  public boolean isPresent() {
    return !node.isMissingNode() && !node.isNull();
  }

  /** Whether {@code key} is set (to anything but {@code null}). */
  public boolean has(String key) {
    JsonNode v = node.get(key);
    return v != null && !v.isNull();
  }

  /** The keys present, in file order. */
  public Set<String> keys() {
    Set<String> keys = new LinkedHashSet<>();
    if (node.isObject()) {
      node.fieldNames().forEachRemaining(keys::add);
    }
    return keys;
  }

  /**
   * Records every present key not in {@code allowed} as a problem listing the allowed keys (and the
   * closest one, for a typo).
   */
  public void allowKeys(String... allowed) {
    allowKeys(Arrays.asList(allowed));
  }

  /** See {@link #allowKeys(String...)}. */
  public void allowKeys(Collection<String> allowed) {
    for (String key : keys()) {
      if (!allowed.contains(key)) {
        String near = closest(key, allowed);
        problems.add(
            path(key),
            "unknown key"
                + (near == null ? "" : " (did you mean " + near + "?)")
                + " (expected one of: "
                + String.join(", ", allowed)
                + ")");
      }
    }
  }

  /** The raw value of {@code key}, {@link MissingNode} when absent. Never validated here. */
  public JsonNode raw(String key) {
    JsonNode v = node.get(key);
    return v == null ? MissingNode.getInstance() : v;
  }

  /** A child mapping; an absent or {@code null} child is an empty section. */
  public ConfigSection section(String key) {
    ConfigSection s = new ConfigSection(path(key), node.get(key), problems);
    s.requireMapping();
    return s;
  }

  /**
   * The mappings of the list at {@code key}, each a section at {@code key[i]} sharing this
   * section's problems; empty when absent. A value that is not a list of mappings is a problem.
   */
  public List<ConfigSection> sections(String key) {
    if (!has(key)) {
      return List.of();
    }
    JsonNode v = raw(key);
    if (!v.isArray()) {
      problem(key, v, "a list of mappings");
      return List.of();
    }
    List<ConfigSection> out = new ArrayList<>();
    for (int i = 0; i < v.size(); i++) {
      ConfigSection s = new ConfigSection(path(key) + '[' + i + ']', v.get(i), problems);
      s.requireMapping();
      out.add(s);
    }
    return List.copyOf(out);
  }

  /** A string, or {@code def} when absent. */
  public String string(String key, String def) {
    return string(key, def, v -> true, "a string");
  }

  /** A string that satisfies {@code valid}, or {@code def} when absent or invalid. */
  public String string(String key, String def, Predicate<String> valid, String expected) {
    if (!has(key)) {
      return def;
    }
    JsonNode v = raw(key);
    if (!v.isTextual() || !valid.test(v.asText())) {
      problem(key, v, expected);
      return def;
    }
    return v.asText();
  }

  /** {@code true}/{@code false}, or {@code def} when absent or invalid. */
  public Boolean bool(String key, Boolean def) {
    if (!has(key)) {
      return def;
    }
    JsonNode v = raw(key);
    if (v.isBoolean()) {
      return v.asBoolean();
    }
    if (v.isTextual()) {
      String t = v.asText().strip().toLowerCase(Locale.ROOT);
      if (t.equals("true") || t.equals("false")) {
        return Boolean.valueOf(t);
      }
    }
    problem(key, v, "true or false");
    return def;
  }

  /** An integer in {@code [min, max]}, or {@code def} when absent or invalid. */
  public Integer integer(String key, Integer def, int min, int max) {
    if (!has(key)) {
      return def;
    }
    JsonNode v = raw(key);
    Long n = null;
    if (v.isIntegralNumber() && v.canConvertToLong()) {
      n = v.asLong();
    } else if (v.isTextual() && v.asText().strip().matches("-?\\d{1,18}")) {
      n = Long.parseLong(v.asText().strip());
    }
    if (n == null || n < min || n > max) {
      problem(key, v, "an integer from " + min + " to " + max);
      return def;
    }
    return n.intValue();
  }

  /** A byte size ({@link ConfigValues#parseBytes}) in {@code [min, max]}, else {@code def}. */
  public Long bytes(String key, Long def, long min, long max) {
    if (!has(key)) {
      return def;
    }
    JsonNode v = raw(key);
    OptionalLong n = OptionalLong.empty();
    if (v.isIntegralNumber() && v.canConvertToLong()) {
      n = OptionalLong.of(v.asLong());
    } else if (v.isTextual()) {
      n = ConfigValues.parseBytes(v.asText());
    }
    if (n.isEmpty() || n.getAsLong() < min || n.getAsLong() > max) {
      problem(
          key,
          v,
          "a size from "
              + ConfigValues.formatBytes(min)
              + " to "
              + ConfigValues.formatBytes(max)
              + ", in bytes or like 512KiB, 4MiB");
      return def;
    }
    return n.getAsLong();
  }

  /**
   * A duration ({@link ConfigValues#parseDuration}) in {@code [min, max]}, else {@code def}. With
   * {@code min} zero, zero is allowed; otherwise the value must be at least {@code min}.
   */
  public Duration duration(String key, Duration def, Duration min, Duration max) {
    if (!has(key)) {
      return def;
    }
    JsonNode v = raw(key);
    Duration d = v.isTextual() ? ConfigValues.parseDuration(v.asText()).orElse(null) : null;
    if (d == null || d.compareTo(min) < 0 || d.compareTo(max) > 0) {
      problem(key, v, durationExpectation(d, min, max));
      return def;
    }
    return d;
  }

  private static String durationExpectation(Duration d, Duration min, Duration max) {
    String kind = min.isZero() ? "a duration" : "a positive duration";
    if (d != null && d.compareTo(max) > 0) {
      return kind + " of at most " + ConfigValues.formatDuration(max);
    }
    if (d != null && !d.isNegative() && min.compareTo(Duration.ofMillis(1)) > 0) {
      return kind + " of at least " + ConfigValues.formatDuration(min);
    }
    return kind + " " + DURATION_EXAMPLES + (min.isZero() ? " or 0s" : "");
  }

  /**
   * One of the constants of {@code type} by wire name (lower case, e.g. {@code status_check}), or
   * {@code def} when absent or invalid.
   */
  public <E extends Enum<E>> E choice(String key, E def, Class<E> type) {
    if (!has(key)) {
      return def;
    }
    JsonNode v = raw(key);
    if (v.isTextual()) {
      for (E e : type.getEnumConstants()) {
        if (wireName(e).equals(v.asText().strip())) {
          return e;
        }
      }
    }
    List<String> names = new ArrayList<>();
    for (E e : type.getEnumConstants()) {
      names.add(wireName(e));
    }
    problem(key, v, "one of " + String.join(", ", names));
    return def;
  }

  /** The configuration name of an enum constant: its name in lower case. */
  public static String wireName(Enum<?> e) {
    return e.name().toLowerCase(Locale.ROOT);
  }

  /**
   * A list of strings each satisfying {@code valid} (a single string counts as a list of one), or
   * {@code def} when absent. Invalid elements are reported with their index and left out.
   */
  public List<String> strings(
      String key, List<String> def, Predicate<String> valid, String expected) {
    if (!has(key)) {
      return def;
    }
    JsonNode v = raw(key);
    if (v.isTextual()) {
      if (valid.test(v.asText())) {
        return List.of(v.asText());
      }
      problem(key, v, expected);
      return def;
    }
    if (!v.isArray()) {
      problem(key, v, "a list of " + expected);
      return def;
    }
    List<String> out = new ArrayList<>();
    Iterator<JsonNode> it = v.elements();
    for (int i = 0; it.hasNext(); i++) {
      JsonNode e = it.next();
      if (e.isTextual() && valid.test(e.asText())) {
        out.add(e.asText());
      } else {
        problems.add(path(key) + '[' + i + ']', e, expected);
      }
    }
    return List.copyOf(out);
  }

  /** Records a problem with the value of {@code key}. */
  public void problem(String key, JsonNode value, String expected) {
    problems.add(path(key), value, expected);
  }

  /** Records a problem with {@code key} that is not about one value. */
  public void problem(String key, String message) {
    problems.add(path(key), message);
  }

  /** Records a problem showing {@code shown}, a value the caller knows is not secret. */
  void problemShown(String key, String shown, String expected) {
    problems.addShown(path(key), shown, expected);
  }

  /** How many problems have been recorded so far (to tell whether a read failed). */
  int problemCount() {
    return problems.list().size();
  }

  /** The problems recorded so far, across this section and every related one. */
  public List<String> problems() {
    return problems.list();
  }

  /** Throws a {@link ConfigException} naming {@code source} if any problem was recorded. */
  public void throwIfInvalid(String source) {
    if (!problems.isEmpty()) {
      throw new ConfigException(source, problems.list());
    }
  }

  private void requireMapping() {
    if (!node.isMissingNode() && !node.isNull() && !node.isObject()) {
      problems.add(path, node, "a mapping of keys to values");
    }
  }

  private static String closest(String key, Collection<String> allowed) {
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    String k = key.toLowerCase(Locale.ROOT);
    for (String a : allowed) {
      int d = distance(k, a.toLowerCase(Locale.ROOT));
      if (d < bestDistance) {
        bestDistance = d;
        best = a;
      }
    }
    return bestDistance <= Math.max(1, key.length() / 4) ? best : null;
  }

  /** Optimal-string-alignment distance (edits and adjacent swaps), for typo suggestions. */
  private static int distance(String a, String b) {
    int[][] d = new int[a.length() + 1][b.length() + 1];
    for (int i = 0; i <= a.length(); i++) {
      d[i][0] = i;
    }
    for (int j = 0; j <= b.length(); j++) {
      d[0][j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
        if (i > 1
            && j > 1
            && a.charAt(i - 1) == b.charAt(j - 2)
            && a.charAt(i - 2) == b.charAt(j - 1)) {
          d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
        }
      }
    }
    return d[a.length()][b.length()];
  }
}
