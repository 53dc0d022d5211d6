package dev.tally.filter;

import dev.tally.core.actor.ActorResolver;
import dev.tally.core.fingerprint.KeyRing;
import java.nio.charset.StandardCharsets;

/** The filter's default actor resolution. */
final class Actors {
  static final String ANONYMOUS = "anonymous";

  private Actors() {}

  /**
   * {@code header}'s value when configured and present (a trusted header set by the app's
   * authentication), else the keyed hash of a bearer token, else {@value #ANONYMOUS}. Never the raw
   * token.
   */
  static ActorResolver resolver(String header, KeyRing keys) {
    return headers -> {
      if (header != null) {
        String v = headers.get(header);
        if (v != null && !v.isBlank()) {
          return "hdr:" + v.trim();
        }
      }
      String auth = headers.get("Authorization");
      if (auth != null && auth.regionMatches(true, 0, "Bearer ", 0, 7) && auth.length() > 7) {
        return keys.tokenHash(auth.substring(7).trim().getBytes(StandardCharsets.UTF_8));
      }
      return ANONYMOUS;
    };
  }
}
