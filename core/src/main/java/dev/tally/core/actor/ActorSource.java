package dev.tally.core.actor;

import java.util.Locale;
import java.util.Objects;

/**
 * One place a caller's identity can come from ({@code actor.sources[i]}). Frozen at start.
 *
 * @param kind where the credential is read
 * @param name the header ({@link Kind#TOKEN_HASH}, {@link Kind#HEADER}, {@link Kind#JWT_CLAIM}) or
 *     the cookie ({@link Kind#COOKIE}); {@code null} for {@link Kind#CLIENT_CERT}
 * @param claim the JWT claim for {@link Kind#JWT_CLAIM} (a claim name or an RFC 6901 pointer);
 *     otherwise {@code null}
 */
public record ActorSource(Kind kind, String name, String claim) {

  /** Where a credential is read. */
  public enum Kind {
    /** A keyed hash of the credential in a header (the bearer token, or the whole value). */
    TOKEN_HASH("tok:"),
    /** The value of a header that a trusted ingress sets (and strips from client requests). */
    HEADER("hdr:"),
    /** A keyed hash of a cookie's value. */
    COOKIE("tok:"),
    /** The subject of the TLS client certificate (mTLS) the adapter verified. */
    CLIENT_CERT("x509:"),
    /** A claim of a JWT whose signature, exp, iss and aud were verified ({@code actor.jwt}). */
    JWT_CLAIM("jwt:");

    private final String prefix;

    Kind(String prefix) {
      this.prefix = prefix;
    }

    /** The prefix of every actor this kind yields ({@code tok:}). */
    public String prefix() {
      return prefix;
    }

    /** The configuration name ({@code token_hash}). */
    public String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  public ActorSource {
    Objects.requireNonNull(kind, "kind");
    String problem = problem(kind, name, claim);
    if (problem != null) {
      throw new IllegalArgumentException(problem);
    }
  }

  public static ActorSource tokenHash(String header) {
    return new ActorSource(Kind.TOKEN_HASH, header, null);
  }

  public static ActorSource header(String header) {
    return new ActorSource(Kind.HEADER, header, null);
  }

  public static ActorSource cookie(String cookie) {
    return new ActorSource(Kind.COOKIE, cookie, null);
  }

  public static ActorSource clientCert() {
    return new ActorSource(Kind.CLIENT_CERT, null, null);
  }

  public static ActorSource jwtClaim(String header, String claim) {
    return new ActorSource(Kind.JWT_CLAIM, header, claim);
  }

  /** What is wrong, in the configuration's words, or {@code null}. Values are not echoed. */
  static String problem(Kind kind, String name, String claim) {
    if (kind != Kind.JWT_CLAIM && claim != null) {
      return "actor.claim: only used with jwt_claim";
    }
    return switch (kind) {
      case TOKEN_HASH, JWT_CLAIM -> {
        if (!ActorConfig.isHeaderName(name)) {
          yield "actor.header: expected an HTTP header name";
        }
        yield kind == Kind.JWT_CLAIM && !ActorConfig.isClaim(claim)
            ? "actor.claim: expected a claim name or an RFC 6901 pointer"
            : null;
      }
      case HEADER -> {
        if (!ActorConfig.isHeaderName(name)) {
          yield "actor.header: expected an HTTP header name (required with header)";
        }
        yield ActorConfig.isCredentialHeader(name)
            ? "actor.header: " + name + " carries credentials (expected: use token_hash)"
            : null;
      }
      case COOKIE -> ActorConfig.isCookieName(name) ? null : "actor.cookie: expected a cookie name";
      case CLIENT_CERT -> name != null ? "actor.header: not used with client_cert" : null;
    };
  }

  @Override
  public String toString() {
    return kind.wireName()
        + (name != null ? "(" + name + ")" : "")
        + (claim != null ? "[" + claim + "]" : "");
  }
}
