package dev.tally.core.canonical;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The redacted shape of tool-call arguments for the audit journal, e.g. {@code {amount:number,
 * tags:array(3), title:string(12)}}: member names (sorted) and types, string lengths in code points
 * and array sizes, never a value. Secret paths read {@code secret}. Objects nested deeper than
 * {@link #MAX_NESTING} or with more than {@link #MAX_MEMBERS} members read {@code object(n)}; the
 * whole summary is cut at {@link #MAX_CHARS} characters, ending in {@code …}.
 */
final class ShapeSummary {
  static final int MAX_CHARS = 512;
  static final int MAX_NESTING = 4;
  static final int MAX_MEMBERS = 64;
  static final int MAX_NAME_CHARS = 64;

  private ShapeSummary() {}

  static String of(JsonNode arguments, PathTrie secrets) {
    if (arguments == null || arguments.isNull() || arguments.isMissingNode()) {
      return "{}";
    }
    StringBuilder sb = new StringBuilder();
    append(sb, arguments, secrets, 1);
    if (sb.length() > MAX_CHARS) {
      int cut = MAX_CHARS - 1;
      if (Character.isHighSurrogate(sb.charAt(cut - 1))) {
        cut--;
      }
      sb.setLength(cut);
      sb.append('…');
    }
    return sb.toString();
  }

  private static void append(StringBuilder sb, JsonNode node, PathTrie secrets, int level) {
    if (secrets != null && secrets.terminal()) {
      sb.append("secret");
      return;
    }
    switch (node.getNodeType()) {
      case OBJECT:
        if (level > MAX_NESTING || node.size() > MAX_MEMBERS) {
          sb.append("object(").append(node.size()).append(')');
          return;
        }
        List<String> names = new ArrayList<>(node.size());
        for (Map.Entry<String, JsonNode> e : node.properties()) {
          names.add(e.getKey());
        }
        names.sort(null);
        sb.append('{');
        for (int i = 0; i < names.size() && sb.length() <= MAX_CHARS; i++) {
          if (i > 0) {
            sb.append(", ");
          }
          String name = names.get(i);
          appendName(sb, name);
          sb.append(':');
          append(sb, node.get(name), secrets == null ? null : secrets.child(name), level + 1);
        }
        sb.append('}');
        return;
      case ARRAY:
        sb.append("array(").append(node.size()).append(')');
        return;
      case STRING:
        String s = node.textValue();
        sb.append("string(").append(s.codePointCount(0, s.length())).append(')');
        return;
      case NUMBER:
        sb.append("number");
        return;
      case BOOLEAN:
        sb.append("boolean");
        return;
      case NULL:
        sb.append("null");
        return;
      default:
        sb.append("unknown");
    }
  }

  /** A plain name as is; anything else quoted with JSON escapes, cut at MAX_NAME_CHARS. */
  private static void appendName(StringBuilder sb, String name) {
    if (plain(name)) {
      sb.append(name);
      return;
    }
    sb.append('"');
    int n = Math.min(name.length(), MAX_NAME_CHARS);
    if (n < name.length() && Character.isHighSurrogate(name.charAt(n - 1))) {
      n--;
    }
    for (int i = 0; i < n; i++) {
      char c = name.charAt(i);
      if (c == '"' || c == '\\') {
        sb.append('\\').append(c);
      } else if (c < 0x20 || c == 0x7f || Character.isSurrogate(c) && !pairedAt(name, i)) {
        sb.append(String.format("\\u%04x", (int) c));
      } else {
        sb.append(c);
      }
    }
    if (n < name.length()) {
      sb.append('…');
    }
    sb.append('"');
  }

  private static boolean pairedAt(String s, int i) {
    char c = s.charAt(i);
    return Character.isHighSurrogate(c)
        ? i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))
        : i > 0 && Character.isHighSurrogate(s.charAt(i - 1));
  }

  private static boolean plain(String name) {
    if (name.isEmpty() || name.length() > MAX_NAME_CHARS) {
      return false;
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      boolean ok =
          c >= 'a' && c <= 'z'
              || c >= 'A' && c <= 'Z'
              || c >= '0' && c <= '9'
              || c == '_'
              || c == '-'
              || c == '.'
              || c == '$'
              || c == '@';
      if (!ok) {
        return false;
      }
    }
    return true;
  }
}
