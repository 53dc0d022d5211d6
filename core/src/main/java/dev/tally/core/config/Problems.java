package dev.tally.core.config;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Collects configuration problems and renders values safely: values under keys that look like
 * secrets are {@code <redacted>}, long values are cut, control characters are replaced.
 */
final class Problems {
  static final String REDACTED = "<redacted>";
  private static final int MAX_SHOWN = 80;
  private static final Pattern SECRET_KEY =
      Pattern.compile(
          "(?i).*(token|password|passwd|secret|credential|private|apikey|api_key|cookie"
              + "|authorization|key)$|(?i).*(token|password|passwd|secret|credential).*");

  private final List<String> list = new ArrayList<>();
  private final Map<String, String> origins = new HashMap<>();

  /** Records that the value at {@code path} came from {@code origin} (an env var or a flag). */
  void origin(String path, String origin) {
    origins.put(path, origin);
  }

  /** {@code path: <value> (expected: <expected>)}. */
  void add(String path, JsonNode value, String expected) {
    list.add(where(path) + ": " + show(path, value) + " (expected: " + expected + ")");
  }

  /** {@code path: <message>}. */
  void add(String path, String message) {
    list.add(where(path) + ": " + message);
  }

  /** {@code path: <shown> (expected: <expected>)} for a value the caller already made safe. */
  void addShown(String path, String shown, String expected) {
    list.add(where(path) + ": " + shown + " (expected: " + expected + ")");
  }

  /** A problem not tied to a key path (a YAML syntax error, an environment variable). */
  void addRaw(String message) {
    list.add(message);
  }

  boolean isEmpty() {
    return list.isEmpty();
  }

  List<String> list() {
    return List.copyOf(list);
  }

  private String where(String path) {
    String o = origins.get(path);
    return o == null ? path : path + " (from " + o + ")";
  }

  /** Whether a value at {@code path} might be a secret and must never be shown. */
  static boolean isSecretPath(String path) {
    String[] segments = path.split("\\.");
    for (int i = 0; i < segments.length; i++) {
      boolean toolName = i == 1 && segments[0].equals("tools");
      if (!toolName && SECRET_KEY.matcher(segments[i]).matches()) {
        return true;
      }
    }
    return false;
  }

  /** A value as it may appear in a message. */
  static String show(String path, JsonNode value) {
    if (isSecretPath(path)) {
      return REDACTED;
    }
    if (value == null || value.isMissingNode()) {
      return "(missing)";
    }
    if (value.isNull()) {
      return "null";
    }
    if (value.isObject()) {
      return "a mapping";
    }
    if (value.isArray()) {
      return "a list";
    }
    return sanitize(value.asText());
  }

  /** Cuts {@code s} to a readable length and replaces control and format characters. */
  static String sanitize(String s) {
    if (s.isBlank()) {
      return '"' + s + '"';
    }
    StringBuilder sb = new StringBuilder(Math.min(s.length(), MAX_SHOWN + 1));
    for (int i = 0; i < s.length() && sb.length() < MAX_SHOWN; i++) {
      char c = s.charAt(i);
      int type = Character.getType(c);
      boolean unsafe =
          Character.isISOControl(c)
              || type == Character.FORMAT
              || type == Character.SURROGATE
              || type == Character.LINE_SEPARATOR
              || type == Character.PARAGRAPH_SEPARATOR;
      sb.append(unsafe ? '?' : c);
    }
    if (s.length() > MAX_SHOWN) {
      sb.append('…');
    }
    return sb.toString();
  }
}
