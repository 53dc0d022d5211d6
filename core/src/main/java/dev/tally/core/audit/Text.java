package dev.tally.core.audit;

/**
 * Cleans strings before they enter a journal entry: control characters and lone surrogates become
 * U+FFFD and long values are cut (never inside a surrogate pair) and marked with {@code ...}. A
 * cleaned string is safe to print on a terminal during an incident, and its canonical JSON form has
 * no escapes other than {@code \"} and {@code \\}.
 */
final class Text {
  private static final char REPLACEMENT = '\uFFFD';
  private static final String CUT = "...";

  private Text() {}

  static String clean(String s, int maxChars) {
    if (s == null) {
      return null;
    }
    int limit = s.length() > maxChars ? Math.max(0, maxChars - CUT.length()) : s.length();
    if (limit > 0 && limit < s.length() && Character.isHighSurrogate(s.charAt(limit - 1))) {
      limit--;
    }
    StringBuilder out = null;
    for (int i = 0; i < limit; i++) {
      char c = s.charAt(i);
      boolean bad =
          c < 0x20
              || c == 0x7f
              || (c >= 0x80 && c < 0xa0)
              || (Character.isHighSurrogate(c)
                  && (i + 1 >= limit || !Character.isLowSurrogate(s.charAt(i + 1))))
              || (Character.isLowSurrogate(c)
                  && (i == 0 || !Character.isHighSurrogate(s.charAt(i - 1))));
      if (bad && out == null) {
        out = new StringBuilder(limit + CUT.length()).append(s, 0, i);
      }
      if (out != null) {
        out.append(bad ? REPLACEMENT : c);
      }
    }
    if (out == null && limit == s.length()) {
      return s;
    }
    if (out == null) {
      out = new StringBuilder(limit + CUT.length()).append(s, 0, limit);
    }
    return limit < s.length() ? out.append(CUT).toString() : out.toString();
  }
}
