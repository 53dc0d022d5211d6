package dev.tally.core.actor;

import com.fasterxml.jackson.databind.JsonNode;
import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.source.ImmutableJWKSet;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.proc.BadJOSEException;
import com.nimbusds.jose.proc.BadJWSException;
import com.nimbusds.jose.proc.JWSKeySelector;
import com.nimbusds.jose.proc.JWSVerificationKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.proc.BadJWTException;
import com.nimbusds.jwt.proc.DefaultJWTProcessor;
import com.nimbusds.jwt.proc.JWTClaimsSetVerifier;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Key;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.X509EncodedKeySpec;
import java.text.ParseException;
import java.time.Clock;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.Set;

/**
 * Verifies a JWT's signature, {@code exp}, {@code nbf}, {@code iss} and {@code aud} with
 * nimbus-jose-jwt, and hands back its payload. Asymmetric algorithms only (RS*, PS*, ES*): a
 * symmetric key would let every holder of it mint tokens for anyone.
 */
final class JwtVerifier {
  static final Set<JWSAlgorithm> ALGORITHMS =
      Set.of(
          JWSAlgorithm.RS256,
          JWSAlgorithm.RS384,
          JWSAlgorithm.RS512,
          JWSAlgorithm.PS256,
          JWSAlgorithm.PS384,
          JWSAlgorithm.PS512,
          JWSAlgorithm.ES256,
          JWSAlgorithm.ES384,
          JWSAlgorithm.ES512);

  private final DefaultJWTProcessor<SecurityContext> processor;

  private JwtVerifier(DefaultJWTProcessor<SecurityContext> processor) {
    this.processor = processor;
  }

  /**
   * A verifier for {@code config} ({@link JwtConfig.VerifiedBy#TALLY}). Key files are read here, a
   * key URL is fetched here and then refreshed in the background ({@link RefreshingJwks}).
   *
   * @throws IllegalArgumentException naming the key and what is wrong with the key file
   */
  static JwtVerifier create(JwtConfig config, Clock clock) {
    JWSKeySelector<SecurityContext> selector;
    if (config.jwksFile() != null) {
      selector =
          new JWSVerificationKeySelector<>(
              ALGORITHMS, new ImmutableJWKSet<>(loadJwks(config.jwksFile())));
    } else if (config.publicKeyFile() != null) {
      selector = single(loadPem(config.publicKeyFile()));
    } else {
      JWKSource<SecurityContext> keys =
          RefreshingJwks.start(config.jwksUrl(), config.refresh(), clock);
      selector = new JWSVerificationKeySelector<>(ALGORITHMS, keys);
    }
    DefaultJWTProcessor<SecurityContext> p = new DefaultJWTProcessor<>();
    p.setJWSKeySelector(selector);
    p.setJWTClaimsSetVerifier(claimsCheck(config, clock));
    return new JwtVerifier(p);
  }

  /**
   * The verified payload of {@code token}.
   *
   * @throws IdentityRefused naming what failed (never the token or its claims)
   */
  JsonNode verify(String token, String where) {
    try {
      JWTClaimsSet set = processor.process(token, null);
      return JwtClaimActor.JSON.valueToTree(set.toJSONObject());
    } catch (ParseException e) {
      throw new IdentityRefused(where + ": not a signed JWT (expected a compact JWS)");
    } catch (BadJWTException e) {
      throw new IdentityRefused(where + ": JWT " + claimsProblem(e.getMessage()));
    } catch (BadJWSException e) {
      throw new IdentityRefused(where + ": JWT signature does not verify");
    } catch (BadJOSEException e) {
      throw new IdentityRefused(
          where
              + ": JWT not verifiable (expected an RS/PS/ES algorithm and a key id of the"
              + " configured keys)");
    } catch (JOSEException | RuntimeException e) {
      throw new IdentityRefused(where + ": JWT could not be verified");
    }
  }

  /**
   * Checks {@code exp} (required), {@code nbf}, {@code iss} (exact) and {@code aud} (one accepted
   * value) on the injected clock; each failure's message echoes no claim value.
   */
  private static JWTClaimsSetVerifier<SecurityContext> claimsCheck(JwtConfig config, Clock clock) {
    Set<String> audiences = Set.copyOf(config.audiences());
    long skew = config.clockSkew().toMillis();
    return (claims, context) -> {
      long now = clock.millis();
      Date exp = claims.getExpirationTime();
      if (exp == null || claims.getIssuer() == null || claims.getAudience().isEmpty()) {
        throw new BadJWTException("lacks a required claim (expected exp, iss and aud)");
      }
      if (exp.getTime() + skew <= now) {
        throw new BadJWTException("expired (exp is past)");
      }
      Date nbf = claims.getNotBeforeTime();
      if (nbf != null && nbf.getTime() - skew > now) {
        throw new BadJWTException("not yet valid (nbf is ahead)");
      }
      if (!config.issuer().equals(claims.getIssuer())) {
        throw new BadJWTException("iss is not the configured issuer");
      }
      if (claims.getAudience().stream().noneMatch(audiences::contains)) {
        throw new BadJWTException("aud is not an accepted audience");
      }
    };
  }

  /** The message of one of our own claim checks; nimbus' own messages may quote claim values. */
  private static String claimsProblem(String message) {
    return message != null
            && (message.startsWith("lacks")
                || message.startsWith("expired")
                || message.startsWith("not yet")
                || message.startsWith("iss is")
                || message.startsWith("aud is"))
        ? message
        : "claims rejected";
  }

  /** The one configured key, whatever key id a token names, for the algorithms of its family. */
  private static JWSKeySelector<SecurityContext> single(JWK jwk) {
    Key key;
    JWSAlgorithm.Family family;
    try {
      if (jwk instanceof RSAKey rsa) {
        key = rsa.toPublicKey();
        family = JWSAlgorithm.Family.RSA;
      } else {
        key = ((ECKey) jwk).toPublicKey();
        family = JWSAlgorithm.Family.EC;
      }
    } catch (JOSEException e) {
      throw new IllegalArgumentException("actor.jwt.publicKeyFile: unusable key", e);
    }
    return (header, context) ->
        ALGORITHMS.contains(header.getAlgorithm()) && family.contains(header.getAlgorithm())
            ? List.of(key)
            : List.of();
  }

  private static JWKSet loadJwks(Path file) {
    try {
      return JWKSet.load(file.toFile());
    } catch (IOException e) {
      throw new IllegalArgumentException("actor.jwt.jwksFile: " + file + " cannot be read", e);
    } catch (ParseException e) {
      throw new IllegalArgumentException(
          "actor.jwt.jwksFile: " + file + " (expected a JWK Set, RFC 7517 §5)", e);
    }
  }

  /** An RSA or EC public key from a PEM {@code PUBLIC KEY} or {@code CERTIFICATE}. */
  static JWK loadPem(Path file) {
    String where = "actor.jwt.publicKeyFile: " + file;
    String pem;
    try {
      pem = Files.readString(file, StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw new IllegalArgumentException(where + " cannot be read", e);
    }
    try {
      PublicKey key;
      if (pem.contains("-----BEGIN CERTIFICATE-----")) {
        X509Certificate cert =
            (X509Certificate)
                CertificateFactory.getInstance("X.509")
                    .generateCertificate(
                        new ByteArrayInputStream(pem.getBytes(StandardCharsets.US_ASCII)));
        key = cert.getPublicKey();
      } else if (pem.contains("-----BEGIN PUBLIC KEY-----")) {
        byte[] der = Base64.getMimeDecoder().decode(body(pem, "PUBLIC KEY"));
        key = publicKey(der);
      } else {
        throw new IllegalArgumentException(
            where + " (expected a PEM PUBLIC KEY or CERTIFICATE block)");
      }
      if (key instanceof RSAPublicKey rsa) {
        return new RSAKey.Builder(rsa).build();
      }
      if (key instanceof ECPublicKey ec) {
        return new ECKey.Builder(curve(ec), ec).build();
      }
      throw new IllegalArgumentException(where + " (expected an RSA or EC public key)");
    } catch (CertificateException | InvalidKeySpecException | IllegalArgumentException e) {
      if (e instanceof IllegalArgumentException iae
          && iae.getMessage() != null
          && iae.getMessage().startsWith(where)) {
        throw iae;
      }
      throw new IllegalArgumentException(where + " (expected an RSA or EC public key in PEM)", e);
    }
  }

  private static com.nimbusds.jose.jwk.Curve curve(ECPublicKey ec) {
    com.nimbusds.jose.jwk.Curve c = com.nimbusds.jose.jwk.Curve.forECParameterSpec(ec.getParams());
    if (c == null) {
      throw new IllegalArgumentException("unsupported EC curve");
    }
    return c;
  }

  private static String body(String pem, String label) {
    int start = pem.indexOf("-----BEGIN " + label + "-----");
    int end = pem.indexOf("-----END " + label + "-----");
    if (start < 0 || end < start) {
      throw new IllegalArgumentException("no " + label + " block");
    }
    return pem.substring(start + ("-----BEGIN " + label + "-----").length(), end);
  }

  private static PublicKey publicKey(byte[] der) throws InvalidKeySpecException {
    X509EncodedKeySpec spec = new X509EncodedKeySpec(der);
    for (String alg : new String[] {"RSA", "EC"}) {
      try {
        return KeyFactory.getInstance(alg).generatePublic(spec);
      } catch (InvalidKeySpecException e) {
        // try the next algorithm
      } catch (java.security.NoSuchAlgorithmException e) {
        throw new IllegalStateException(alg + " unavailable", e);
      }
    }
    throw new InvalidKeySpecException("neither RSA nor EC");
  }
}
