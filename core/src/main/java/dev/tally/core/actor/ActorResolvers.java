package dev.tally.core.actor;

import dev.tally.core.fingerprint.HmacKey;
import dev.tally.core.fingerprint.KeyRing;
import dev.tally.core.mcp.Headers;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Builds the {@link ActorResolver} an {@link ActorConfig} describes. Every resolver returns one of:
 *
 * <ul>
 *   <li>{@code tok:<32 hex>} — {@link KeyRing#tokenHash} of the bearer token, or of the whole
 *       header value when it is not {@code Bearer} (never the token itself);
 *   <li>{@code hdr:<value>} — the trusted header's value;
 *   <li>{@code jwt:<value>} — the JWT claim's value;
 *   <li>the configured fixed value;
 *   <li>{@link #ANONYMOUS} — when the header is missing, empty or unusable (see each factory).
 * </ul>
 *
 * <p>All anonymous requests share one actor scope. Behind an ingress that always sets the header
 * (and strips any client-supplied copy) that only happens to requests that bypassed it.
 */
public final class ActorResolvers {
  /** The actor of a request that carries no usable identity. */
  public static final String ANONYMOUS = "anonymous";

  /** Longest header value or claim accepted as an actor, in chars. */
  public static final int MAX_ACTOR_LENGTH = 256;

  private ActorResolvers() {}

  /**
   * The resolver for {@code config}; {@code keys} is used by {@link ActorConfig.Mode#TOKEN_HASH}.
   */
  public static ActorResolver from(ActorConfig config, KeyRing keys) {
    return switch (config.mode()) {
      case TOKEN_HASH -> tokenHash(config.header(), keys);
      case HEADER -> trustedHeader(config.header());
      case JWT_CLAIM -> jwtClaim(config.header(), config.claim());
      case FIXED -> fixed(config.value());
    };
  }

  /**
   * {@code tok:} + a keyed hash of the credential in {@code header}: the token after {@code Bearer
   * } (case-insensitive scheme), else the whole trimmed value. Missing or empty → {@link
   * #ANONYMOUS}. Hashes use the active key, so rotating keys changes actors; {@link
   * ActorResolver#resolveUnder} gives the actor under each older key, by which the gate still
   * matches executions recorded before the rotation.
   */
  public static ActorResolver tokenHash(String header, KeyRing keys) {
    Objects.requireNonNull(keys, "keys");
    requireHeader(header);
    return new TokenHash(header, keys);
  }

  /**
   * {@code hdr:} + the trimmed value of {@code header}, which a trusted ingress sets. Missing,
   * empty, longer than {@link #MAX_ACTOR_LENGTH} or containing control or format characters →
   * {@link #ANONYMOUS} (a request without a usable identity, not a refusal).
   */
  public static ActorResolver trustedHeader(String header) {
    requireHeader(header);
    if (ActorConfig.isCredentialHeader(header)) {
      throw new IllegalArgumentException(
          "actor.header: " + header + " carries credentials (expected: use token_hash)");
    }
    return new TrustedHeader(header);
  }

  /**
   * {@code jwt:} + the value of {@code claim} in the payload of the JWT in {@code header} (after an
   * optional {@code Bearer } scheme). The signature is <b>not</b> verified: only safe behind an
   * ingress that validates the token and rejects requests without a valid one. A missing header, a
   * malformed token, a missing claim or a value that is not a string or integer (or is unusable as
   * in {@link #trustedHeader}) → {@link #ANONYMOUS}.
   */
  public static ActorResolver jwtClaim(String header, String claim) {
    requireHeader(header);
    if (!ActorConfig.isClaim(claim)) {
      throw new IllegalArgumentException(
          "actor.claim: expected a claim name or an RFC 6901 pointer");
    }
    return JwtClaimActor.create(header, claim);
  }

  /** Always {@code value}. */
  public static ActorResolver fixed(String value) {
    if (!isValidActor(value)) {
      throw new IllegalArgumentException(
          "actor.value: expected 1-" + MAX_ACTOR_LENGTH + " printable characters");
    }
    return new Fixed(value);
  }

  /**
   * Whether {@code s} may be an actor: 1 to {@link #MAX_ACTOR_LENGTH} chars, not blank, with no
   * control, format (bidi, zero-width), separator-line or unpaired surrogate characters.
   */
  public static boolean isValidActor(String s) {
    if (s == null || s.isBlank() || s.length() > MAX_ACTOR_LENGTH) {
      return false;
    }
    for (int i = 0; i < s.length(); ) {
      int cp = s.codePointAt(i);
      int type = Character.getType(cp);
      if (Character.isISOControl(cp)
          || type == Character.FORMAT
          || type == Character.SURROGATE
          || type == Character.LINE_SEPARATOR
          || type == Character.PARAGRAPH_SEPARATOR
          || type == Character.UNASSIGNED) {
        return false;
      }
      i += Character.charCount(cp);
    }
    return true;
  }

  /** The credential after a {@code Bearer} scheme, or {@code null} when there is none. */
  static String bearer(String value) {
    if (value.length() > 7 && value.regionMatches(true, 0, "Bearer ", 0, 7)) {
      String t = value.substring(7).strip();
      return t.isEmpty() ? null : t;
    }
    return null;
  }

  private static void requireHeader(String header) {
    if (!ActorConfig.isHeaderName(header)) {
      throw new IllegalArgumentException("actor.header: expected an HTTP header name");
    }
  }

  private static final class TokenHash implements ActorResolver {
    private final String header;
    private final KeyRing keys;

    TokenHash(String header, KeyRing keys) {
      this.header = header;
      this.keys = keys;
    }

    @Override
    public String resolve(Headers headers) {
      return resolveUnder(headers, keys.active());
    }

    @Override
    public String resolveUnder(Headers headers, HmacKey key) {
      String v = headers.get(header);
      if (v == null || v.isBlank()) {
        return ANONYMOUS;
      }
      String token = bearer(v.strip());
      String credential = token != null ? token : v.strip();
      return keys.tokenHash(key, credential.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public String toString() {
      return "ActorResolver[token_hash, header=" + header + "]";
    }
  }

  private static final class TrustedHeader implements ActorResolver {
    private final String header;

    TrustedHeader(String header) {
      this.header = header;
    }

    @Override
    public String resolve(Headers headers) {
      String v = headers.get(header);
      if (v == null) {
        return ANONYMOUS;
      }
      v = v.strip();
      return isValidActor(v) ? "hdr:" + v : ANONYMOUS;
    }

    @Override
    public String toString() {
      return "ActorResolver[header, header=" + header + "]";
    }
  }

  private static final class Fixed implements ActorResolver {
    private final String value;

    Fixed(String value) {
      this.value = value;
    }

    @Override
    public String resolve(Headers headers) {
      return value;
    }

    @Override
    public String toString() {
      return "ActorResolver[fixed, value=" + value + "]";
    }
  }
}
