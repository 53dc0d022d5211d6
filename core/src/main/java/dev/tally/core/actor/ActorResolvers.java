package dev.tally.core.actor;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.fingerprint.HmacKey;
import dev.tally.core.fingerprint.KeyRing;
import dev.tally.core.mcp.Headers;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Builds the {@link ActorResolver} an {@link ActorConfig} describes. Every resolver returns one of:
 *
 * <ul>
 *   <li>{@code tok:<32 hex>} — {@link KeyRing#tokenHash} of the bearer token in a header, of the
 *       whole header value when it is not {@code Bearer}, or of a cookie's value (never the
 *       credential itself);
 *   <li>{@code hdr:<value>} — a trusted header's value;
 *   <li>{@code x509:<subject>} — the verified TLS client certificate's subject (RFC 2253);
 *   <li>{@code jwt:<value>} — a claim of a verified JWT;
 *   <li>the configured fixed value;
 *   <li>{@link #ANONYMOUS} — when the request carries none of the configured credentials.
 * </ul>
 *
 * <p>A credential that is present but proves nothing throws {@link IdentityRefused}: a JWT that
 * fails verification, a header or cookie sent more than once, a trusted value that is not a usable
 * actor. Anonymous requests share one actor scope, but the gate never shows them a stored result
 * ({@code RESULT_WITHHELD}).
 */
public final class ActorResolvers {
  /** The actor of a request that carries no usable identity. */
  public static final String ANONYMOUS = "anonymous";

  /** Longest header value or claim accepted as an actor, in chars. */
  public static final int MAX_ACTOR_LENGTH = 256;

  private ActorResolvers() {}

  /** The resolver for {@code config}; {@code keys} hashes tokens and cookies. */
  public static ActorResolver from(ActorConfig config, KeyRing keys) {
    return from(config, keys, Clock.systemUTC());
  }

  /**
   * As {@link #from(ActorConfig, KeyRing)}, checking JWT {@code exp}/{@code nbf} by {@code clock}.
   */
  public static ActorResolver from(ActorConfig config, KeyRing keys, Clock clock) {
    Objects.requireNonNull(keys, "keys");
    if (config.fixed() != null) {
      return fixed(config.fixed());
    }
    JwtVerifier verifier =
        config.jwt() != null && config.jwt().verifiedBy() == JwtConfig.VerifiedBy.TALLY
            ? JwtVerifier.create(config.jwt(), clock)
            : null;
    List<SourceReader> readers = new ArrayList<>();
    for (ActorSource s : config.sources()) {
      readers.add(SourceReader.of(s, keys, verifier));
    }
    return new SourceChain(readers, config.anonymous() == ActorConfig.Anonymous.REFUSE);
  }

  /** {@code tok:} + a keyed hash of the credential in {@code header}; see {@link SourceReader}. */
  public static ActorResolver tokenHash(String header, KeyRing keys) {
    return from(ActorConfig.tokenHash(header), keys);
  }

  /** {@code hdr:} + the trimmed value of {@code header}, which a trusted ingress sets. */
  public static ActorResolver trustedHeader(String header) {
    if (ActorConfig.isCredentialHeader(header)) {
      throw new IllegalArgumentException(
          "actor.header: " + header + " carries credentials (expected: use token_hash)");
    }
    return new SourceChain(List.of(SourceReader.of(ActorSource.header(header), null, null)), false);
  }

  /**
   * {@code jwt:} + {@code claim} of the JWT in {@code header}, read <b>without</b> verifying it:
   * only for an operator who declared a verifying ingress in front ({@code verifiedBy: ingress}).
   */
  public static ActorResolver jwtClaim(String header, String claim) {
    return new SourceChain(
        List.of(SourceReader.of(ActorSource.jwtClaim(header, claim), null, null)), false);
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

  /** Tries each source in order; the first present one decides. */
  private static final class SourceChain implements ActorResolver {
    private final List<SourceReader> readers;
    private final boolean refuseAnonymous;

    SourceChain(List<SourceReader> readers, boolean refuseAnonymous) {
      this.readers = List.copyOf(readers);
      this.refuseAnonymous = refuseAnonymous;
    }

    @Override
    public String resolve(Headers headers) {
      return resolveUnder(headers, null);
    }

    @Override
    public String resolveUnder(Headers headers, HmacKey key) {
      for (SourceReader r : readers) {
        String actor = r.read(headers, key);
        if (actor != null) {
          return actor;
        }
      }
      if (refuseAnonymous) {
        throw new IdentityRefused(
            "no credential (expected one of: " + readers + "; actor.anonymous is refuse)");
      }
      return ANONYMOUS;
    }

    @Override
    public String toString() {
      return "ActorResolver" + readers;
    }
  }

  /** Reads one {@link ActorSource}: {@code null} when its credential is absent. */
  abstract static class SourceReader {
    final ActorSource source;

    SourceReader(ActorSource source) {
      this.source = source;
    }

    static SourceReader of(ActorSource s, KeyRing keys, JwtVerifier verifier) {
      return switch (s.kind()) {
        case TOKEN_HASH -> new TokenHash(s, Objects.requireNonNull(keys, "keys"));
        case HEADER -> new TrustedHeader(s);
        case COOKIE -> new Cookie(s, Objects.requireNonNull(keys, "keys"));
        case CLIENT_CERT -> new ClientCert(s);
        case JWT_CLAIM -> new JwtClaim(s, verifier);
      };
    }

    /**
     * The actor, or {@code null} when the credential is absent; {@code key} is the ring key to hash
     * with ({@code null}: the active one).
     *
     * @throws IdentityRefused when it is present but proves nothing
     */
    abstract String read(Headers headers, HmacKey key);

    /** The single non-blank value of the header, or {@code null}; refuses two of them. */
    final String single(Headers headers, String header) {
      String found = null;
      int count = 0;
      for (String v : headers.all(header)) {
        if (v != null && !v.isBlank()) {
          found = v.strip();
          count++;
        }
      }
      if (count > 1) {
        throw new IdentityRefused(
            "header " + header + " appears " + count + " times (expected exactly one)");
      }
      return found;
    }

    @Override
    public String toString() {
      return source.toString();
    }
  }

  private static final class TokenHash extends SourceReader {
    private final KeyRing keys;

    TokenHash(ActorSource s, KeyRing keys) {
      super(s);
      this.keys = keys;
    }

    @Override
    String read(Headers headers, HmacKey key) {
      String v = single(headers, source.name());
      if (v == null) {
        return null;
      }
      String token = bearer(v);
      String credential = token != null ? token : v;
      return keys.tokenHash(
          key != null ? key : keys.active(), credential.getBytes(StandardCharsets.UTF_8));
    }
  }

  private static final class Cookie extends SourceReader {
    private final KeyRing keys;

    Cookie(ActorSource s, KeyRing keys) {
      super(s);
      this.keys = keys;
    }

    @Override
    String read(Headers headers, HmacKey key) {
      String found = null;
      int count = 0;
      for (String header : headers.all("Cookie")) {
        // RFC 6265 §5.4: pairs separated by "; " (HTTP/2 may split them over several headers).
        for (String pair : header.split(";")) {
          int eq = pair.indexOf('=');
          if (eq > 0 && pair.substring(0, eq).strip().equals(source.name())) {
            String v = pair.substring(eq + 1).strip();
            if (v.length() >= 2 && v.startsWith("\"") && v.endsWith("\"")) {
              v = v.substring(1, v.length() - 1);
            }
            if (!v.isEmpty()) {
              found = v;
              count++;
            }
          }
        }
      }
      if (count > 1) {
        throw new IdentityRefused(
            "cookie " + source.name() + " appears " + count + " times (expected exactly one)");
      }
      return found == null
          ? null
          : keys.tokenHash(
              key != null ? key : keys.active(), found.getBytes(StandardCharsets.UTF_8));
    }
  }

  private static final class TrustedHeader extends SourceReader {
    TrustedHeader(ActorSource s) {
      super(s);
    }

    @Override
    String read(Headers headers, HmacKey key) {
      String v = single(headers, source.name());
      if (v == null) {
        return null;
      }
      if (!isValidActor(v)) {
        throw new IdentityRefused(
            "header "
                + source.name()
                + ": not a usable actor (expected 1-"
                + MAX_ACTOR_LENGTH
                + " printable characters)");
      }
      return "hdr:" + v;
    }
  }

  private static final class ClientCert extends SourceReader {
    ClientCert(ActorSource s) {
      super(s);
    }

    @Override
    String read(Headers headers, HmacKey key) {
      String subject = headers.clientSubject();
      if (subject == null || subject.isBlank()) {
        return null;
      }
      String actor = "x509:" + subject.strip();
      if (!isValidActor(actor)) {
        throw new IdentityRefused(
            "client certificate subject: not a usable actor (expected at most "
                + (MAX_ACTOR_LENGTH - 5)
                + " printable characters)");
      }
      return actor;
    }
  }

  private static final class JwtClaim extends SourceReader {
    private final JwtClaimActor claim;
    private final JwtVerifier verifier;

    JwtClaim(ActorSource s, JwtVerifier verifier) {
      super(s);
      this.claim = new JwtClaimActor(s.claim());
      this.verifier = verifier;
    }

    @Override
    String read(Headers headers, HmacKey key) {
      String v = single(headers, source.name());
      if (v == null) {
        return null;
      }
      String where = "header " + source.name();
      if (v.length() > JwtClaimActor.MAX_TOKEN_CHARS) {
        throw new IdentityRefused(
            where + ": JWT longer than " + JwtClaimActor.MAX_TOKEN_CHARS + " characters");
      }
      String token = bearer(v);
      token = token != null ? token : v;
      JsonNode payload;
      if (verifier != null) {
        payload = verifier.verify(token, where);
      } else {
        payload = JwtClaimActor.unverifiedPayload(token);
        if (payload == null) {
          throw new IdentityRefused(where + ": not a JWT (expected a compact JWS)");
        }
      }
      String actor = claim.actor(payload);
      if (actor == null) {
        throw new IdentityRefused(
            where
                + ": JWT claim "
                + claim.claim()
                + " missing or unusable (expected a string or integer of 1-"
                + MAX_ACTOR_LENGTH
                + " printable characters)");
      }
      return actor;
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
