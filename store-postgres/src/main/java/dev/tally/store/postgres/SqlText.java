package dev.tally.store.postgres;

/**
 * Maps any Java string to a string PostgreSQL can store in a {@code text} column and back, exactly.
 * PostgreSQL refuses U+0000 and a UTF-8 encoder replaces an unpaired surrogate, so a string with
 * either (or one that starts with the marker) is stored as the marker {@code U+FFFF} followed by
 * the string with {@code %}, U+0000 and unpaired surrogates percent-escaped ({@code %25}, {@code
 * %00}, {@code %uD800}). Every other string, which is nearly every string, is stored as it is, so
 * rows stay readable and equality filters match the encoded parameter.
 */
final class SqlText {
  static final char MARK = '\uFFFF';

  private SqlText() {}

  /** The stored form of {@code s} ({@code null} stays {@code null}). */
  static String encode(String s) {
    if (s == null || isPlain(s)) {
      return s;
    }
    StringBuilder out = new StringBuilder(s.length() + 8).append(MARK);
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '%') {
        out.append("%25");
      } else if (c == '\u0000') {
        out.append("%00");
      } else if (Character.isHighSurrogate(c)
          && i + 1 < s.length()
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        out.append(c).append(s.charAt(++i));
      } else if (Character.isSurrogate(c)) {
        out.append("%u").append(String.format("%04X", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  /**
   * The string whose stored form is {@code s}; throws {@link IllegalArgumentException} for a marked
   * string with a malformed escape.
   */
  static String decode(String s) {
    if (s == null || s.isEmpty() || s.charAt(0) != MARK) {
      return s;
    }
    StringBuilder out = new StringBuilder(s.length());
    for (int i = 1; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c != '%') {
        out.append(c);
      } else if (s.startsWith("25", i + 1)) {
        out.append('%');
        i += 2;
      } else if (s.startsWith("00", i + 1)) {
        out.append('\u0000');
        i += 2;
      } else if (s.startsWith("u", i + 1) && hex4(s, i + 2)) {
        out.append((char) Integer.parseInt(s.substring(i + 2, i + 6), 16));
        i += 5;
      } else {
        throw new IllegalArgumentException("malformed escape in stored text at offset " + i);
      }
    }
    return out.toString();
  }

  private static boolean hex4(String s, int from) {
    if (from + 4 > s.length()) {
      return false;
    }
    for (int i = from; i < from + 4; i++) {
      if (Character.digit(s.charAt(i), 16) < 0) {
        return false;
      }
    }
    return true;
  }

  private static boolean isPlain(String s) {
    if (!s.isEmpty() && s.charAt(0) == MARK) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '\u0000') {
        return false;
      }
      if (Character.isHighSurrogate(c)) {
        if (i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
          i++;
        } else {
          return false;
        }
      } else if (Character.isLowSurrogate(c)) {
        return false;
      }
    }
    return true;
  }
}
