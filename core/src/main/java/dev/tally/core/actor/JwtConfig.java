package dev.tally.core.actor;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * How a JWT is trusted before one of its claims becomes the actor ({@code actor.jwt}). Frozen at
 * start.
 *
 * <p>With {@link VerifiedBy#TALLY} Tally verifies the signature (keys from {@code jwksFile}, {@code
 * jwksUrl} or {@code publicKeyFile}, exactly one), {@code exp} (required), {@code nbf}, {@code iss}
 * (exact) and {@code aud} (one of {@code audiences}). With {@link VerifiedBy#INGRESS} the operator
 * declares that a verifying ingress in front rejects every request without a valid token, and the
 * claim is read as is.
 *
 * @param verifiedBy who verifies the token
 * @param issuer the required {@code iss} ({@code tally} only)
 * @param audiences the accepted {@code aud} values, at least one ({@code tally} only)
 * @param jwksFile a JWK Set file, or {@code null}
 * @param jwksUrl a JWK Set URL (http/https), or {@code null}
 * @param publicKeyFile a PEM public key or certificate, or {@code null}
 * @param clockSkew the tolerance for {@code exp} and {@code nbf}
 * @param refresh how often keys from a URL are fetched again; a token naming an unknown key id also
 *     triggers a fetch, at most every {@link #MIN_REFETCH}
 */
public record JwtConfig(
    VerifiedBy verifiedBy,
    String issuer,
    List<String> audiences,
    Path jwksFile,
    URI jwksUrl,
    Path publicKeyFile,
    Duration clockSkew,
    Duration refresh) {
  public static final Duration DEFAULT_CLOCK_SKEW = Duration.ofSeconds(60);
  public static final Duration DEFAULT_REFRESH = Duration.ofMinutes(10);

  /** Shortest interval between two fetches of a JWKS URL. */
  public static final Duration MIN_REFETCH = Duration.ofSeconds(30);

  /** Who verified the token. */
  public enum VerifiedBy {
    /** Tally verifies signature, exp, iss and aud. */
    TALLY,
    /** An ingress in front verified it and rejects requests without a valid one. */
    INGRESS;

    public String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  public JwtConfig {
    Objects.requireNonNull(verifiedBy, "verifiedBy");
    audiences = audiences == null ? List.of() : List.copyOf(audiences);
    clockSkew = clockSkew == null ? DEFAULT_CLOCK_SKEW : clockSkew;
    refresh = refresh == null ? DEFAULT_REFRESH : refresh;
    if (verifiedBy == VerifiedBy.TALLY) {
      int keys =
          (jwksFile != null ? 1 : 0) + (jwksUrl != null ? 1 : 0) + (publicKeyFile != null ? 1 : 0);
      if (keys != 1) {
        throw new IllegalArgumentException(
            "actor.jwt: expected exactly one of jwksFile, jwksUrl, publicKeyFile");
      }
      if (issuer == null || issuer.isBlank()) {
        throw new IllegalArgumentException("actor.jwt.issuer: required (the exact iss)");
      }
      if (audiences.isEmpty()) {
        throw new IllegalArgumentException("actor.jwt.audience: required (accepted aud values)");
      }
    }
  }

  /** The operator declares a verifying ingress in front. */
  public static JwtConfig ingress() {
    return new JwtConfig(VerifiedBy.INGRESS, null, List.of(), null, null, null, null, null);
  }

  /** Tally verifies tokens with keys from a JWK Set file. */
  public static JwtConfig jwksFile(Path file, String issuer, List<String> audiences) {
    return new JwtConfig(VerifiedBy.TALLY, issuer, audiences, file, null, null, null, null);
  }

  /** Tally verifies tokens with keys from a JWK Set URL. */
  public static JwtConfig jwksUrl(URI url, String issuer, List<String> audiences) {
    return new JwtConfig(VerifiedBy.TALLY, issuer, audiences, null, url, null, null, null);
  }

  /** Tally verifies tokens with one PEM public key or certificate. */
  public static JwtConfig publicKey(Path pem, String issuer, List<String> audiences) {
    return new JwtConfig(VerifiedBy.TALLY, issuer, audiences, null, null, pem, null, null);
  }
}
