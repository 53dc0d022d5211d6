package dev.tally.sidecar.internal.proxy;

import java.util.Locale;

/** Just enough media-type parsing for the transport's {@code Content-Type} and {@code Accept}. */
final class MediaTypes {
  static final String JSON = "application/json";
  static final String SSE = "text/event-stream";

  private MediaTypes() {}

  /** The bare, lower-case type of a {@code Content-Type} value (parameters dropped). */
  static String essence(String contentType) {
    if (contentType == null) {
      return "";
    }
    int semi = contentType.indexOf(';');
    return (semi < 0 ? contentType : contentType.substring(0, semi))
        .trim()
        .toLowerCase(Locale.ROOT);
  }

  /** Whether an {@code Accept} value admits {@code type} (wildcards and q=0 handled). */
  static boolean accepts(String accept, String type) {
    if (accept == null || accept.isBlank()) {
      return false;
    }
    String major = type.substring(0, type.indexOf('/'));
    for (String part : accept.split(",")) {
      String[] p = part.split(";");
      String range = p[0].trim().toLowerCase(Locale.ROOT);
      if (zeroQuality(p)) {
        continue;
      }
      if (range.equals(type) || range.equals("*/*") || range.equals(major + "/*")) {
        return true;
      }
    }
    return false;
  }

  private static boolean zeroQuality(String[] params) {
    for (int i = 1; i < params.length; i++) {
      String s = params[i].trim().toLowerCase(Locale.ROOT);
      if (s.startsWith("q=")) {
        try {
          return Double.parseDouble(s.substring(2)) <= 0;
        } catch (NumberFormatException e) {
          return false;
        }
      }
    }
    return false;
  }
}
