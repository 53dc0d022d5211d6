package dev.tally.core.actor;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.PlainJWT;
import com.nimbusds.jwt.SignedJWT;
import dev.tally.core.fingerprint.HmacKey;
import dev.tally.core.fingerprint.KeyRing;
import dev.tally.core.mcp.TallyError;
import dev.tally.core.testing.MutableClock;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A JWT-claim actor only from a token Tally verified (issue 22 case 5): signature, {@code exp},
 * {@code iss} and {@code aud}, with keys from a JWK Set file, a PEM key or a JWK Set URL (served by
 * WireMock). Tokens are signed here with nimbus. A token that fails is refused with {@code
 * IDENTITY_UNPROVEN} and a message that holds nothing of the token.
 */
class JwtActorTest {
  static final KeyRing KEYS = KeyRing.of(HmacKey.of("k1", ActorSourcesTest.fill(1)));
  static final String ISS = "https://idp.example.test";
  static final String AUD = "tally-mcp";
  static final Instant NOW = Instant.parse("2026-06-01T12:00:00Z");

  static RSAKey signing;
  static RSAKey stranger;
  static WireMockServer idp;

  @TempDir static Path dir;

  MutableClock clock = MutableClock.at(NOW);

  @BeforeAll
  static void keys() throws Exception {
    signing = new RSAKeyGenerator(2048).keyID("kid-1").generate();
    stranger = new RSAKeyGenerator(2048).keyID("kid-1").generate();
    idp = new WireMockServer(options().dynamicPort().bindAddress("127.0.0.1"));
    idp.start();
    warmUp(URI.create(idp.baseUrl() + "/warm-up")); // unmatched: 404, counted nowhere
  }

  /**
   * One request with a generous timeout before any test: WireMock's first answer can take seconds
   * on a busy machine, longer than the 5 s a resolver's blocking fetch at start may wait.
   */
  private static void warmUp(URI url) throws Exception {
    java.net.HttpURLConnection c = (java.net.HttpURLConnection) url.toURL().openConnection();
    c.setConnectTimeout(60_000);
    c.setReadTimeout(60_000);
    try {
      assertThat(c.getResponseCode()).isEqualTo(404);
    } finally {
      c.disconnect();
    }
  }

  @AfterAll
  static void stop() {
    idp.stop();
  }

  static String token(RSAKey key, Consumer<JWTClaimsSet.Builder> claims) throws Exception {
    JWTClaimsSet.Builder b =
        new JWTClaimsSet.Builder()
            .subject("user-42")
            .issuer(ISS)
            .audience(AUD)
            .expirationTime(Date.from(NOW.plusSeconds(300)))
            .issueTime(Date.from(NOW));
    claims.accept(b);
    SignedJWT jwt =
        new SignedJWT(
            new JWSHeader.Builder(JWSAlgorithm.RS256)
                .keyID(key.getKeyID())
                .type(JOSEObjectType.JWT)
                .build(),
            b.build());
    jwt.sign(new RSASSASigner(key));
    return jwt.serialize();
  }

  static String token(Consumer<JWTClaimsSet.Builder> claims) throws Exception {
    return token(signing, claims);
  }

  ActorResolver resolver(JwtConfig jwt) {
    return ActorResolvers.from(ActorConfig.jwtClaim("Authorization", "sub", jwt), KEYS, clock);
  }

  ActorResolver fromJwksFile() throws Exception {
    Path f = dir.resolve("jwks.json");
    Files.writeString(f, new JWKSet(signing.toPublicJWK()).toString());
    return resolver(JwtConfig.jwksFile(f, ISS, List.of(AUD, "other-aud")));
  }

  static void refused(ActorResolver r, String token, String why) {
    assertThatThrownBy(() -> r.resolve(TestHeaders.of("Authorization", "Bearer " + token)))
        .as(why)
        .isInstanceOf(IdentityRefused.class)
        .hasMessageContaining(why)
        .satisfies(
            e -> {
              IdentityRefused ir = (IdentityRefused) e;
              assertThat(ir.error().code()).isEqualTo(TallyError.Code.IDENTITY_UNPROVEN);
              assertThat(ir.error().code().httpStatus()).isEqualTo(401);
              assertThat(e.getMessage()).doesNotContain(token).doesNotContain("user-42");
              for (String part : token.split("\\.")) {
                if (part.length() > 8) {
                  assertThat(e.getMessage()).doesNotContain(part);
                }
              }
            });
  }

  @Test
  void aVerifiedTokensClaimIsTheActor() throws Exception {
    ActorResolver r = fromJwksFile();
    assertThat(r.resolve(TestHeaders.of("Authorization", "Bearer " + token(b -> {}))))
        .isEqualTo("jwt:user-42");
    assertThat(
            r.resolve(
                TestHeaders.of("Authorization", "Bearer " + token(b -> b.audience("other-aud")))))
        .isEqualTo("jwt:user-42");
  }

  @Test
  void anExpiredTokenIsRefusedOnTheInjectedClock() throws Exception {
    ActorResolver r = fromJwksFile();
    String t = token(b -> {});
    clock.advance(Duration.ofSeconds(300 + 61));
    refused(r, t, "expired");
  }

  @Test
  void wrongAudienceIssuerSignatureOrAlgorithmIsRefused() throws Exception {
    ActorResolver r = fromJwksFile();
    refused(r, token(b -> b.audience("someone-else")), "aud is not an accepted audience");
    refused(r, token(b -> b.issuer("https://evil.example")), "iss is not the configured issuer");
    refused(r, token(stranger, b -> {}), "signature does not verify");
    refused(r, token(b -> b.expirationTime(null)), "lacks a required claim");
    refused(r, token(b -> b.notBeforeTime(Date.from(NOW.plusSeconds(3600)))), "not yet valid");
    // alg none and a symmetric key are never accepted.
    String none =
        new PlainJWT(
                new JWTClaimsSet.Builder()
                    .subject("user-42")
                    .issuer(ISS)
                    .audience(AUD)
                    .expirationTime(Date.from(NOW.plusSeconds(60)))
                    .build())
            .serialize();
    refused(r, none, "header Authorization");
    SignedJWT hs =
        new SignedJWT(
            new JWSHeader(JWSAlgorithm.HS256),
            new JWTClaimsSet.Builder()
                .subject("user-42")
                .issuer(ISS)
                .audience(AUD)
                .expirationTime(Date.from(NOW.plusSeconds(60)))
                .build());
    hs.sign(new MACSigner(new byte[32]));
    refused(r, hs.serialize(), "not verifiable");
    refused(r, "not-a-jwt-at-all", "not a signed JWT");
  }

  @Test
  void todaysUnverifiedReadingWouldAcceptAForgedToken() throws Exception {
    // A token signed by anyone: the ingress-declared resolver (the old behaviour) takes it, the
    // verifying one refuses it.
    String forged = token(stranger, b -> b.subject("victim"));
    ActorResolver ingress = resolver(JwtConfig.ingress());
    assertThat(ingress.resolve(TestHeaders.of("Authorization", "Bearer " + forged)))
        .isEqualTo("jwt:victim");
    assertThatThrownBy(
            () -> fromJwksFile().resolve(TestHeaders.of("Authorization", "Bearer " + forged)))
        .isInstanceOf(IdentityRefused.class);
  }

  @Test
  void aPemPublicKeyVerifies() throws Exception {
    Path pem = dir.resolve("idp.pem");
    Files.writeString(
        pem,
        "-----BEGIN PUBLIC KEY-----\n"
            + Base64.getMimeEncoder(64, "\n".getBytes())
                .encodeToString(signing.toPublicKey().getEncoded())
            + "\n-----END PUBLIC KEY-----\n");
    ActorResolver r = resolver(JwtConfig.publicKey(pem, ISS, List.of(AUD)));
    assertThat(r.resolve(TestHeaders.of("Authorization", "Bearer " + token(b -> {}))))
        .isEqualTo("jwt:user-42");
    refused(r, token(stranger, b -> {}), "signature does not verify");
  }

  @Test
  void aBadKeyFileIsAStartupErrorNamingTheKey() throws Exception {
    Path bad = dir.resolve("bad.pem");
    Files.writeString(bad, "hello");
    assertThatThrownBy(() -> resolver(JwtConfig.publicKey(bad, ISS, List.of(AUD))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("actor.jwt.publicKeyFile");
    assertThatThrownBy(() -> resolver(JwtConfig.jwksFile(bad, ISS, List.of(AUD))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("actor.jwt.jwksFile");
  }

  @Test
  void keysFromAJwksUrlAndANewKeyIdIsFetchedInTheBackground() throws Exception {
    idp.stubFor(
        get(urlEqualTo("/.well-known/jwks.json"))
            .willReturn(
                aResponse()
                    .withHeader("Content-Type", "application/json")
                    .withBody(new JWKSet(signing.toPublicJWK()).toString())));
    URI url = URI.create(idp.baseUrl() + "/.well-known/jwks.json");
    ActorResolver r = resolver(JwtConfig.jwksUrl(url, ISS, List.of(AUD)));
    assertThat(r.resolve(TestHeaders.of("Authorization", "Bearer " + token(b -> {}))))
        .isEqualTo("jwt:user-42");

    // The IdP rotates to a new key: the first token with its kid is refused (no blocking fetch on
    // the request path) and triggers a fetch; once fetched, it verifies.
    RSAKey next = new RSAKeyGenerator(2048).keyID("kid-2").generate();
    idp.stubFor(
        get(urlEqualTo("/.well-known/jwks.json"))
            .willReturn(
                aResponse()
                    .withHeader("Content-Type", "application/json")
                    .withBody(
                        new JWKSet(List.of(signing.toPublicJWK(), next.toPublicJWK()))
                            .toString())));
    String rotated = token(next, b -> b.subject("user-43"));
    clock.advance(JwtConfig.MIN_REFETCH);
    refused(r, rotated, "not verifiable");
    String actor = null;
    long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (actor == null && System.nanoTime() < end) {
      try {
        actor = r.resolve(TestHeaders.of("Authorization", "Bearer " + rotated));
      } catch (IdentityRefused e) {
        Thread.onSpinWait();
        Thread.sleep(20);
      }
    }
    assertThat(actor).isEqualTo("jwt:user-43");
    idp.verify(2, getRequestedFor(urlEqualTo("/.well-known/jwks.json")));
  }
}
