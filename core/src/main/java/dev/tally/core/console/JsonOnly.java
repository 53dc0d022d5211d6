package dev.tally.core.console;

import java.util.Locale;

/**
 * The media-type rule of state-changing admin requests: {@code Content-Type: application/json}
 * (optionally {@code ; charset=utf-8}), nothing else, and not missing. A web page can send a
 * cross-site POST without asking first (no CORS preflight) only as {@code text/plain}, {@code
 * application/x-www-form-urlencoded} or {@code multipart/form-data}, or with no body type at all:
 * refusing all of those means no page can make the admin port act, even where a token is not
 * required to read.
 */
public final class JsonOnly {
  public static final String MEDIA_TYPE = "application/json";

  private JsonOnly() {}

  /** {@code null} when {@code contentType} is JSON; else the refusal's message. */
  public static String problem(String contentType) {
    if (contentType == null || contentType.isBlank()) {
      return "Content-Type: missing (expected: "
          + MEDIA_TYPE
          + " on every state-changing request, even with an empty body)";
    }
    String[] parts = contentType.split(";");
    String type = parts[0].strip().toLowerCase(Locale.ROOT);
    String why = null;
    if (!type.equals(MEDIA_TYPE)) {
      why =
          switch (type) {
            case "text/plain", "application/x-www-form-urlencoded", "multipart/form-data" ->
                "; a web page can send it cross-site without asking";
            default -> "";
          };
    } else {
      for (int i = 1; i < parts.length; i++) {
        String p = parts[i].strip().toLowerCase(Locale.ROOT);
        if (p.startsWith("charset=")
            && !p.equals("charset=utf-8")
            && !p.equals("charset=\"utf-8\"")) {
          why = "; JSON is UTF-8";
        }
      }
    }
    return why == null
        ? null
        : "Content-Type: "
            + AdminReply.quote(contentType.strip())
            + " (expected: "
            + MEDIA_TYPE
            + why
            + ")";
  }
}
