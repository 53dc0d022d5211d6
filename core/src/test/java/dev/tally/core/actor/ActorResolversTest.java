package dev.tally.core.actor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.core.fingerprint.HmacKey;
import dev.tally.core.fingerprint.KeyRing;
import dev.tally.core.mcp.Headers;
import dev.tally.core.mcp.TallyError;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class ActorResolversTest {
  private static final String TOKEN = "sk-live-4f9a8b7c6d5e4f3a2b1c";
  private static final KeyRing KEYS = ring((byte) 7);

  private static KeyRing ring(byte fill) {
    byte[] k = new byte[32];
    Arrays.fill(k, fill);
    return KeyRing.of(HmacKey.of("k1", k));
  }

  private static Headers headers(String... nameValue) {
    Map<String, String> m = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    for (int i = 0; i < nameValue.length; i += 2) {
      m.put(nameValue[i], nameValue[i + 1]);
    }
    return m::get;
  }

  private static String jwt(String payloadJson) {
    Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
    return b64.encodeToString("{\"alg\":\"RS256\"}".getBytes(StandardCharsets.UTF_8))
        + '.'
        + b64.encodeToString(payloadJson.getBytes(StandardCharsets.UTF_8))
        + ".c2lnbmF0dXJl";
  }

  @Test
  void tokenHashIdentifiesByAKeyedHashOfTheBearerTokenNeverTheToken() {
    ActorResolver r = ActorResolvers.from(ActorConfig.DEFAULT, KEYS);
    String actor = r.resolve(headers("Authorization", "Bearer " + TOKEN));
    assertThat(actor).matches("tok:[0-9a-f]{32}").doesNotContain(TOKEN);
    assertThat(actor).isEqualTo(KEYS.tokenHash(TOKEN.getBytes(StandardCharsets.UTF_8)));
    assertThat(r.resolve(headers("authorization", "bearer   " + TOKEN))).isEqualTo(actor);
    assertThat(r.toString()).doesNotContain(TOKEN);
  }

  @Test
  void tokenHashSeparatesTokensAndKeys() {
    ActorResolver r = ActorResolvers.tokenHash("Authorization", KEYS);
    String a = r.resolve(headers("Authorization", "Bearer " + TOKEN));
    String b = r.resolve(headers("Authorization", "Bearer " + TOKEN + "x"));
    String otherKey =
        ActorResolvers.tokenHash("Authorization", ring((byte) 8))
            .resolve(headers("Authorization", "Bearer " + TOKEN));
    assertThat(a).isNotEqualTo(b).isNotEqualTo(otherKey);
  }

  @Test
  void tokenHashOfOtherSchemesHashesTheWholeValue() {
    ActorResolver r = ActorResolvers.tokenHash("Authorization", KEYS);
    String basic = "Basic dXNlcjpodW50ZXIy";
    String actor = r.resolve(headers("Authorization", basic));
    assertThat(actor).isEqualTo(KEYS.tokenHash(basic.getBytes(StandardCharsets.UTF_8)));
    assertThat(actor).doesNotContain("dXNlcjpodW50ZXIy");
  }

  @Test
  void tokenHashReadsAConfiguredHeader() {
    ActorResolver r = ActorResolvers.tokenHash("X-Api-Key", KEYS);
    assertThat(r.resolve(headers("X-Api-Key", TOKEN)))
        .isEqualTo(KEYS.tokenHash(TOKEN.getBytes(StandardCharsets.UTF_8)));
    assertThat(r.resolve(headers("Authorization", "Bearer " + TOKEN)))
        .isEqualTo(ActorResolvers.ANONYMOUS);
  }

  @Test
  void noOrEmptyCredentialIsAnonymous() {
    ActorResolver r = ActorResolvers.from(ActorConfig.DEFAULT, KEYS);
    assertThat(r.resolve(Headers.NONE)).isEqualTo("anonymous");
    assertThat(r.resolve(headers("Authorization", "  "))).isEqualTo("anonymous");
  }

  @Test
  void trustedHeaderUsesThePrefixedValue() {
    ActorResolver r = ActorResolvers.from(ActorConfig.header("X-Forwarded-User"), KEYS);
    assertThat(r.resolve(headers("x-forwarded-user", " alice@example.com ")))
        .isEqualTo("hdr:alice@example.com");
    assertThat(r.resolve(headers("X-Forwarded-User", "Zoë Ñandú"))).isEqualTo("hdr:Zoë Ñandú");
  }

  @Test
  void trustedHeaderMissingIsAnonymousAndUnusableIsRefused() {
    ActorResolver r = ActorResolvers.trustedHeader("X-Forwarded-User");
    assertThat(r.resolve(Headers.NONE)).isEqualTo("anonymous");
    assertThat(r.resolve(headers("X-Forwarded-User", ""))).isEqualTo("anonymous");
    assertThat(r.resolve(headers("X-Forwarded-User", "a".repeat(256))))
        .isEqualTo("hdr:" + "a".repeat(256));
    for (String bad : new String[] {"a".repeat(257), "eve\r\nadmin", "adm\u202Enime", "a\u200Bb"}) {
      assertThatThrownBy(() -> r.resolve(headers("X-Forwarded-User", bad)))
          .isInstanceOf(IdentityRefused.class)
          .hasMessageContaining("X-Forwarded-User")
          .hasMessageNotContaining(bad);
    }
  }

  @Test
  void trustedHeaderRefusesCredentialHeaders() {
    for (String h : new String[] {"Authorization", "cookie", "Proxy-Authorization"}) {
      assertThatThrownBy(() -> ActorResolvers.trustedHeader(h))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("token_hash");
      assertThatThrownBy(() -> ActorConfig.header(h.toUpperCase(Locale.ROOT)))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void jwtClaimReadsTheSubjectWithoutVerifying() {
    ActorResolver r =
        ActorResolvers.from(
            ActorConfig.jwtClaim("Authorization", "sub", JwtConfig.ingress()), KEYS);
    String token = jwt("{\"sub\":\"user-42\",\"exp\":1}");
    assertThat(r.resolve(headers("Authorization", "Bearer " + token))).isEqualTo("jwt:user-42");
    assertThat(r.toString()).doesNotContain(token);
  }

  @Test
  void jwtClaimReadsNamedAndNestedClaimsAndIntegers() {
    String token =
        jwt("{\"sub\":\"x\",\"email\":\"a@b.c\",\"user\":{\"id\":12345678901234567890}}");
    Headers h = headers("X-Jwt", token);
    assertThat(ActorResolvers.jwtClaim("X-Jwt", "email").resolve(h)).isEqualTo("jwt:a@b.c");
    assertThat(ActorResolvers.jwtClaim("X-Jwt", "/user/id").resolve(h))
        .isEqualTo("jwt:12345678901234567890");
  }

  @Test
  void jwtClaimAcceptsPaddedPayloads() {
    String payload =
        Base64.getUrlEncoder().encodeToString("{\"sub\":\"abc\"}".getBytes(StandardCharsets.UTF_8));
    assertThat(payload).endsWith("=");
    assertThat(
            ActorResolvers.jwtClaim("Authorization", "sub")
                .resolve(headers("Authorization", "Bearer e30." + payload + ".sig")))
        .isEqualTo("jwt:abc");
  }

  @Test
  void malformedJwtsAndUnusableClaimsAreRefusedNeverAnonymous() {
    ActorResolver r = ActorResolvers.jwtClaim("Authorization", "sub");
    String[] bad = {
      "Bearer not-a-jwt",
      "Bearer a.b",
      "Bearer a.b.c.d",
      "Bearer e30..sig",
      "Bearer e30.%%%.sig",
      "Bearer " + jwt("[1,2]"),
      "Bearer " + jwt("{\"sub\":\"a\",\"sub\":\"b\"}"),
      "Bearer " + jwt("{\"sub\":\"a\"} trailing"),
      "Bearer " + jwt("{\"sub\":true}"),
      "Bearer " + jwt("{\"sub\":1.5}"),
      "Bearer " + jwt("{\"sub\":{\"x\":1}}"),
      "Bearer " + jwt("{\"sub\":\"\"}"),
      "Bearer " + jwt("{\"sub\":\"a\\u0000b\"}"),
      "Bearer " + jwt("{\"other\":\"a\"}"),
      "Bearer " + jwt("{\"sub\":\"" + "a".repeat(257) + "\"}"),
      "Bearer " + jwt("{\"sub\":\"" + "a".repeat(20_000) + "\"}"),
      "Bearer " + jwt("[".repeat(100) + "]".repeat(100)),
    };
    for (String v : bad) {
      assertThatThrownBy(() -> r.resolve(headers("Authorization", v)))
          .as(v)
          .isInstanceOf(IdentityRefused.class)
          .satisfies(
              e ->
                  assertThat(((IdentityRefused) e).error().code())
                      .isEqualTo(TallyError.Code.IDENTITY_UNPROVEN));
    }
    assertThat(r.resolve(Headers.NONE)).isEqualTo("anonymous");
  }

  @Test
  void fixedIsAlwaysTheValue() {
    ActorResolver r = ActorResolvers.from(ActorConfig.fixed("batch"), KEYS);
    assertThat(r.resolve(Headers.NONE)).isEqualTo("batch");
    assertThat(r.resolve(headers("Authorization", "Bearer " + TOKEN))).isEqualTo("batch");
  }

  @Test
  void noResolverOrConfigEverShowsARawToken() {
    Headers h = headers("Authorization", "Bearer " + TOKEN, "X-Forwarded-User", "bob");
    for (ActorConfig c :
        new ActorConfig[] {
          ActorConfig.DEFAULT,
          ActorConfig.tokenHash("X-Api-Key"),
          ActorConfig.header("X-Forwarded-User"),
          ActorConfig.jwtClaim("Authorization", "sub", JwtConfig.ingress()),
          ActorConfig.fixed("svc")
        }) {
      ActorResolver r = ActorResolvers.from(c, KEYS);
      try {
        assertThat(r.resolve(h)).doesNotContain(TOKEN);
      } catch (IdentityRefused e) {
        assertThat(e.getMessage()).doesNotContain(TOKEN);
      }
      assertThat(r.toString()).doesNotContain(TOKEN);
      assertThat(c.toString()).doesNotContain(TOKEN);
    }
    assertThat(KEYS.toString()).doesNotContain(TOKEN);
  }

  @Test
  void configRejectsInvalidCombinations() {
    assertThatThrownBy(() -> ActorConfig.fixed("")).hasMessageContaining("actor.value");
    assertThatThrownBy(() -> new ActorSource(ActorSource.Kind.TOKEN_HASH, "A", "sub"))
        .hasMessageContaining("actor.claim");
    assertThatThrownBy(
            () -> ActorConfig.of(List.of(ActorSource.jwtClaim("Authorization", "sub")), null))
        .hasMessageContaining("actor.jwt");
    assertThatThrownBy(() -> ActorConfig.jwtClaim("Authorization", "/bad~", JwtConfig.ingress()))
        .hasMessageContaining("actor.claim");
    assertThatThrownBy(() -> ActorConfig.header("Bad Header")).hasMessageContaining("actor.header");
  }

  @Test
  void validActorValues() {
    assertThat(ActorResolvers.isValidActor("svc-1")).isTrue();
    assertThat(ActorResolvers.isValidActor("名前")).isTrue();
    assertThat(ActorResolvers.isValidActor(null)).isFalse();
    assertThat(ActorResolvers.isValidActor(" ")).isFalse();
    assertThat(ActorResolvers.isValidActor("a\tb")).isFalse();
    assertThat(ActorResolvers.isValidActor("\uD800x")).isFalse();
    assertThat(ActorResolvers.isValidActor("a\u2028b")).isFalse();
  }
}
