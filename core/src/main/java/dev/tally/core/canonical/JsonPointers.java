package dev.tally.core.canonical;

import java.util.ArrayList;
import java.util.List;

/** RFC 6901 JSON pointers: parsing rule paths and rendering error locations. */
final class JsonPointers {
  private JsonPointers() {}

  /**
   * The reference tokens of {@code pointer}, unescaped ({@code ~1} is {@code /}, {@code ~0} is
   * {@code ~}); the empty list for {@code ""}. Throws {@link IllegalArgumentException} naming the
   * pointer if it is not RFC 6901 syntax.
   */
  static List<String> parse(String pointer) {
    if (pointer.isEmpty()) {
      return List.of();
    }
    if (pointer.charAt(0) != '/') {
      throw new IllegalArgumentException(
          "JSON pointer \"" + pointer + "\" (expected: \"\" or tokens each starting with /)");
    }
    List<String> tokens = new ArrayList<>();
    StringBuilder token = new StringBuilder();
    for (int i = 1; i < pointer.length(); i++) {
      char c = pointer.charAt(i);
      if (c == '/') {
        tokens.add(token.toString());
        token.setLength(0);
      } else if (c == '~') {
        char next = i + 1 < pointer.length() ? pointer.charAt(i + 1) : 0;
        if (next != '0' && next != '1') {
          throw new IllegalArgumentException(
              "JSON pointer \"" + pointer + "\" (expected: ~ only as ~0 or ~1)");
        }
        token.append(next == '0' ? '~' : '/');
        i++;
      } else {
        token.append(c);
      }
    }
    tokens.add(token.toString());
    return List.copyOf(tokens);
  }

  /** The array index a token names, or -1 if it is not one ({@code "-"}, leading zeros, ...). */
  static int arrayIndex(String token) {
    int n = token.length();
    if (n == 0 || n > 9 || (n > 1 && token.charAt(0) == '0')) {
      return -1;
    }
    int v = 0;
    for (int i = 0; i < n; i++) {
      char c = token.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      v = v * 10 + (c - '0');
    }
    return v;
  }

  /** Appends {@code /token} with RFC 6901 escaping. */
  static void appendToken(StringBuilder sb, String token) {
    sb.append('/');
    for (int i = 0; i < token.length(); i++) {
      char c = token.charAt(i);
      if (c == '~') {
        sb.append("~0");
      } else if (c == '/') {
        sb.append("~1");
      } else {
        sb.append(c);
      }
    }
  }

  /**
   * The pointer of a path held as parallel stacks: level {@code i} is the member {@code names[i]}
   * if that is non-null, else the array element {@code indexes[i]}.
   */
  static String of(String[] names, int[] indexes, int depth) {
    if (depth == 0) {
      return "";
    }
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < depth; i++) {
      if (names[i] != null) {
        appendToken(sb, names[i]);
      } else {
        sb.append('/').append(indexes[i]);
      }
    }
    return sb.toString();
  }

  /** {@code parent} extended by one member name. */
  static String child(String parent, String name) {
    StringBuilder sb = new StringBuilder(parent);
    appendToken(sb, name);
    return sb.toString();
  }
}
