package dev.tally.core.actor;

import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * How the actor of a request is resolved ({@link ActorResolvers#from}). Frozen at start.
 *
 * @param mode the resolution mode
 * @param header the header read by {@link Mode#TOKEN_HASH} (default {@code Authorization}), {@link
 *     Mode#HEADER} (required) and {@link Mode#JWT_CLAIM} (default {@code Authorization}); {@code
 *     null} for {@link Mode#FIXED}
 * @param claim the JWT claim for {@link Mode#JWT_CLAIM}: a top-level claim name or an RFC 6901
 *     pointer starting with {@code /}; otherwise {@code null}
 * @param value the actor for {@link Mode#FIXED}; otherwise {@code null}
 */
public record ActorConfig(Mode mode, String header, String claim, String value) {
  public static final String DEFAULT_HEADER = "Authorization";
  public static final String DEFAULT_CLAIM = "sub";

  private static final Pattern HEADER_NAME = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}");
  private static final Pattern CLAIM_NAME = Pattern.compile("[^\\p{Cntrl}/]{1,128}");
  private static final Pattern CLAIM_POINTER = Pattern.compile("(/([^~/\\p{Cntrl}]|~[01])*)+");
  private static final Set<String> CREDENTIAL_HEADERS =
      Set.of("authorization", "proxy-authorization", "cookie", "x-api-key");

  /** Token hash of the {@code Authorization} header; {@code anonymous} without one. */
  public static final ActorConfig DEFAULT = tokenHash(DEFAULT_HEADER);

  /** How the actor is found. */
  public enum Mode {
    /** A keyed hash of the bearer token (or of the whole header value). */
    TOKEN_HASH,
    /** The value of a header set by a trusted ingress. */
    HEADER,
    /** A claim of a JWT validated in front of Tally (the signature is not checked here). */
    JWT_CLAIM,
    /** Always the same actor. */
    FIXED;

    /** The configuration name ({@code token_hash}). */
    public String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  public ActorConfig {
    Objects.requireNonNull(mode, "mode");
    String problem = problem(mode, header, claim, value);
    if (problem != null) {
      throw new IllegalArgumentException(problem);
    }
  }

  public static ActorConfig tokenHash(String header) {
    return new ActorConfig(Mode.TOKEN_HASH, header, null, null);
  }

  public static ActorConfig header(String header) {
    return new ActorConfig(Mode.HEADER, header, null, null);
  }

  public static ActorConfig jwtClaim(String header, String claim) {
    return new ActorConfig(Mode.JWT_CLAIM, header, claim, null);
  }

  public static ActorConfig fixed(String value) {
    return new ActorConfig(Mode.FIXED, null, null, value);
  }

  /** Whether {@code name} is a valid HTTP header name (RFC 9110 token, at most 128 chars). */
  public static boolean isHeaderName(String name) {
    return name != null && HEADER_NAME.matcher(name).matches();
  }

  /** Whether {@code claim} is a claim name or an RFC 6901 pointer into the JWT payload. */
  public static boolean isClaim(String claim) {
    return claim != null
        && (claim.startsWith("/")
            ? CLAIM_POINTER.matcher(claim).matches() && claim.length() <= 256
            : CLAIM_NAME.matcher(claim).matches());
  }

  /** Whether a trusted header named {@code name} would put a credential into the actor. */
  public static boolean isCredentialHeader(String name) {
    return name != null && CREDENTIAL_HEADERS.contains(name.toLowerCase(Locale.ROOT));
  }

  /**
   * What is wrong with this combination, in the configuration's words ({@code actor.header: ...}),
   * or {@code null}. Values are not echoed.
   */
  static String problem(Mode mode, String header, String claim, String value) {
    if (mode != Mode.JWT_CLAIM && claim != null) {
      return "actor.claim: only used with mode jwt_claim";
    }
    if (mode != Mode.FIXED && value != null) {
      return "actor.value: only used with mode fixed";
    }
    switch (mode) {
      case TOKEN_HASH, JWT_CLAIM:
        if (!isHeaderName(header)) {
          return "actor.header: expected an HTTP header name";
        }
        if (mode == Mode.JWT_CLAIM && !isClaim(claim)) {
          return "actor.claim: expected a claim name or an RFC 6901 pointer";
        }
        return null;
      case HEADER:
        if (!isHeaderName(header)) {
          return "actor.header: expected an HTTP header name (required with mode header)";
        }
        if (isCredentialHeader(header)) {
          return "actor.header: " + header + " carries credentials (expected: use token_hash)";
        }
        return null;
      default:
        if (header != null) {
          return "actor.header: not used with mode fixed";
        }
        if (!ActorResolvers.isValidActor(value)) {
          return "actor.value: expected 1-"
              + ActorResolvers.MAX_ACTOR_LENGTH
              + " printable characters (required with mode fixed)";
        }
        return null;
    }
  }
}
