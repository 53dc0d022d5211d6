package dev.tally.core.actor;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * How the actor of a request is resolved ({@link ActorResolvers#from}). Frozen at start.
 *
 * <p>The {@code sources} are tried in order; the first whose credential is present decides the
 * actor. A present credential that proves nothing (a JWT that fails verification, a trusted header
 * sent twice) refuses the call: it never falls through to a later source or to {@link
 * ActorResolvers#ANONYMOUS}. A request with none of them is anonymous, or refused with {@link
 * Anonymous#REFUSE}.
 *
 * @param sources where identities come from, in order; empty exactly when {@code fixed} is set
 * @param jwt how JWTs are trusted; required exactly when a source is {@code jwt_claim}
 * @param fixed the one actor of every request, or {@code null}
 * @param anonymous what happens to a request that carries none of the credentials
 */
public record ActorConfig(
    List<ActorSource> sources, JwtConfig jwt, String fixed, Anonymous anonymous) {
  public static final String DEFAULT_HEADER = "Authorization";
  public static final String DEFAULT_CLAIM = "sub";

  private static final Pattern HEADER_NAME = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}");
  private static final Pattern COOKIE_NAME = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}");
  private static final Pattern CLAIM_NAME = Pattern.compile("[^\\p{Cntrl}/]{1,128}");
  private static final Pattern CLAIM_POINTER = Pattern.compile("(/([^~/\\p{Cntrl}]|~[01])*)+");
  private static final Set<String> CREDENTIAL_HEADERS =
      Set.of("authorization", "proxy-authorization", "cookie", "x-api-key");

  /** Token hash of the {@code Authorization} header; {@code anonymous} without one. */
  public static final ActorConfig DEFAULT = tokenHash(DEFAULT_HEADER);

  /** The single-source forms of {@code actor.mode} (kept from before {@code actor.sources}). */
  public enum Mode {
    TOKEN_HASH,
    HEADER,
    JWT_CLAIM,
    FIXED;

    /** The configuration name ({@code token_hash}). */
    public String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** What a request without any configured credential gets. */
  public enum Anonymous {
    /** It runs as {@link ActorResolvers#ANONYMOUS}; it is never shown another call's result. */
    ALLOW,
    /** It is refused with {@code IDENTITY_UNPROVEN}. */
    REFUSE;

    public String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  public ActorConfig {
    sources = sources == null ? List.of() : List.copyOf(sources);
    Objects.requireNonNull(anonymous, "anonymous");
    if (fixed != null) {
      if (!sources.isEmpty()) {
        throw new IllegalArgumentException("actor.value: a fixed actor takes no sources");
      }
      if (!ActorResolvers.isValidActor(fixed)) {
        throw new IllegalArgumentException(
            "actor.value: expected 1-"
                + ActorResolvers.MAX_ACTOR_LENGTH
                + " printable characters (required with mode fixed)");
      }
    } else if (sources.isEmpty()) {
      throw new IllegalArgumentException("actor.sources: expected at least one source");
    }
    boolean jwtSource = sources.stream().anyMatch(s -> s.kind() == ActorSource.Kind.JWT_CLAIM);
    if (jwtSource && jwt == null) {
      throw new IllegalArgumentException(
          "actor.jwt: required with a jwt_claim source (expected: jwksFile, jwksUrl or"
              + " publicKeyFile with issuer and audience, or verifiedBy: ingress)");
    }
    if (!jwtSource && jwt != null) {
      throw new IllegalArgumentException("actor.jwt: only used with a jwt_claim source");
    }
  }

  /** Sources tried in order, anonymous callers allowed. */
  public static ActorConfig of(List<ActorSource> sources, JwtConfig jwt) {
    return new ActorConfig(sources, jwt, null, Anonymous.ALLOW);
  }

  public static ActorConfig tokenHash(String header) {
    return of(List.of(ActorSource.tokenHash(header)), null);
  }

  public static ActorConfig header(String header) {
    return of(List.of(ActorSource.header(header)), null);
  }

  public static ActorConfig jwtClaim(String header, String claim, JwtConfig jwt) {
    return of(List.of(ActorSource.jwtClaim(header, claim)), Objects.requireNonNull(jwt, "jwt"));
  }

  public static ActorConfig fixed(String value) {
    return new ActorConfig(List.of(), null, value, Anonymous.ALLOW);
  }

  /** This configuration with anonymous callers handled as {@code a}. */
  public ActorConfig withAnonymous(Anonymous a) {
    return new ActorConfig(sources, jwt, fixed, a);
  }

  /** Whether a request can run as {@link ActorResolvers#ANONYMOUS} (startup warns about it). */
  public boolean allowsAnonymous() {
    return fixed == null && anonymous == Anonymous.ALLOW;
  }

  /** Whether {@code name} is a valid HTTP header name (RFC 9110 token, at most 128 chars). */
  public static boolean isHeaderName(String name) {
    return name != null && HEADER_NAME.matcher(name).matches();
  }

  /** Whether {@code name} is a valid cookie name (RFC 6265 token, at most 128 chars). */
  public static boolean isCookieName(String name) {
    return name != null && COOKIE_NAME.matcher(name).matches();
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
}
