package dev.tally.core.mcp;

import java.util.Locale;

/**
 * Just enough media-type parsing for the transport's {@code Content-Type} and {@code Accept}, for
 * every adapter: what a POST must declare, what a client accepts, how an answer is framed.
 */
public final class MediaTypes {
  public static final String JSON = "application/json";
  public static final String SSE = "text/event-stream";

  private MediaTypes() {}

  /** The bare, lower-case type of a {@code Content-Type} value (parameters dropped). */
  public static String essence(String contentType) {
    if (contentType == null) {
      return "";
    }
    int semi = contentType.indexOf(';');
    return (semi < 0 ? contentType : contentType.substring(0, semi))
        .trim()
        .toLowerCase(Locale.ROOT);
  }

  /**
   * Whether an {@code Accept} value admits {@code type} (wildcards and q=0 handled).
   *
   * <p>Implementation note: scans the value in place (no splitting, no lower-casing copies): it is
   * read twice for every POST.
   */
  public static boolean accepts(String accept, String type) {
    if (accept == null) {
      return false;
    }
    int slash = type.indexOf('/');
    int n = accept.length();
    int start = 0;
    while (start < n) {
      int comma = accept.indexOf(',', start);
      int end = comma < 0 ? n : comma;
      int semi = accept.indexOf(';', start);
      int rangeEnd = semi < 0 || semi > end ? end : semi;
      int rs = skipSpace(accept, start, rangeEnd);
      int re = trimEnd(accept, rs, rangeEnd);
      if (matchesRange(accept, rs, re, type, slash) && !zeroQuality(accept, rangeEnd, end)) {
        return true;
      }
      start = end + 1;
    }
    return false;
  }

  /**
   * Whether {@code contentType} is {@code application/json} (parameters such as charset ignored).
   */
  public static boolean isJson(String contentType) {
    return JSON.equals(essence(contentType));
  }

  /** Whether {@code contentType} is {@code text/event-stream}. */
  public static boolean isSse(String contentType) {
    return SSE.equals(essence(contentType));
  }

  /**
   * Whether an {@code Accept} value names {@code type} itself (wildcards do not count; a q=0 range
   * does not either).
   */
  public static boolean lists(String accept, String type) {
    if (accept == null) {
      return false;
    }
    int n = accept.length();
    int start = 0;
    while (start < n) {
      int comma = accept.indexOf(',', start);
      int end = comma < 0 ? n : comma;
      int semi = accept.indexOf(';', start);
      int rangeEnd = semi < 0 || semi > end ? end : semi;
      int rs = skipSpace(accept, start, rangeEnd);
      int re = trimEnd(accept, rs, rangeEnd);
      if (re - rs == type.length()
          && accept.regionMatches(true, rs, type, 0, type.length())
          && !zeroQuality(accept, rangeEnd, end)) {
        return true;
      }
      start = end + 1;
    }
    return false;
  }

  /**
   * Whether a POST's {@code Accept} satisfies the Streamable HTTP transport: it must list (or admit
   * by wildcard) both {@code application/json} and {@code text/event-stream}.
   */
  public static boolean acceptsBoth(String accept) {
    return accepts(accept, JSON) && accepts(accept, SSE);
  }

  private static boolean matchesRange(String s, int from, int to, String type, int slash) {
    int len = to - from;
    if (len == type.length() && s.regionMatches(true, from, type, 0, len)) {
      return true;
    }
    if (len == 3 && s.startsWith("*/*", from)) {
      return true;
    }
    return len == slash + 2
        && s.regionMatches(true, from, type, 0, slash + 1)
        && s.charAt(to - 1) == '*';
  }

  /** Whether the parameters in {@code [from, to)} (each after a ';') include {@code q=0}. */
  private static boolean zeroQuality(String s, int from, int to) {
    int i = from;
    while (i < to) {
      int next = s.indexOf(';', i + 1);
      int pe = next < 0 || next > to ? to : next;
      int ps = skipSpace(s, i + 1, pe);
      if (pe - ps >= 2 && (s.charAt(ps) == 'q' || s.charAt(ps) == 'Q') && s.charAt(ps + 1) == '=') {
        try {
          return Double.parseDouble(s.substring(ps + 2, trimEnd(s, ps + 2, pe))) <= 0;
        } catch (NumberFormatException e) {
          return false;
        }
      }
      i = pe;
    }
    return false;
  }

  private static int skipSpace(String s, int from, int to) {
    while (from < to && s.charAt(from) <= ' ') {
      from++;
    }
    return from;
  }

  private static int trimEnd(String s, int from, int to) {
    while (to > from && s.charAt(to - 1) <= ' ') {
      to--;
    }
    return to;
  }
}
