package dev.tally.core.actor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.core.fingerprint.HmacKey;
import dev.tally.core.fingerprint.KeyRing;
import dev.tally.core.mcp.Headers;
import dev.tally.core.mcp.TallyError;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The actor comes from any configured credential, tried in order (issue 22 case 5): a caller with
 * only an {@code X-Api-Key} is identified by it, never lumped with every other anonymous caller; a
 * credential sent twice or unusable refuses the call.
 */
class ActorSourcesTest {
  static final HmacKey K1 = HmacKey.of("k1", fill(1));
  static final HmacKey K2 = HmacKey.of("k2", fill(2));
  static final KeyRing KEYS = KeyRing.of(K1);

  static final ActorConfig BEARER_OR_API_KEY =
      ActorConfig.of(
          List.of(ActorSource.tokenHash("Authorization"), ActorSource.tokenHash("X-Api-Key")),
          null);

  static byte[] fill(int b) {
    byte[] k = new byte[32];
    Arrays.fill(k, (byte) b);
    return k;
  }

  @Test
  void callersWithDifferentApiKeysAreDifferentActors() {
    ActorResolver r = ActorResolvers.from(BEARER_OR_API_KEY, KEYS);
    String a = r.resolve(TestHeaders.of("X-Api-Key", "key-of-alice-123"));
    String b = r.resolve(TestHeaders.of("X-Api-Key", "key-of-bob-4567"));
    assertThat(a).startsWith("tok:").isNotEqualTo(b).isNotEqualTo(ActorResolvers.ANONYMOUS);
    assertThat(a).doesNotContain("key-of-alice");
    // The first present source decides: a bearer token wins over the API key.
    String bearer = r.resolve(TestHeaders.of("Authorization", "Bearer t-1", "X-Api-Key", "k"));
    assertThat(bearer).isEqualTo(r.resolve(TestHeaders.of("Authorization", "Bearer t-1")));
    assertThat(r.resolve(Headers.NONE)).isEqualTo(ActorResolvers.ANONYMOUS);
  }

  @Test
  void todaysDefaultLumpsApiKeyCallersTogetherWhichTheSourceListFixes() {
    ActorResolver old = ActorResolvers.from(ActorConfig.DEFAULT, KEYS);
    assertThat(old.resolve(TestHeaders.of("X-Api-Key", "a")))
        .isEqualTo(old.resolve(TestHeaders.of("X-Api-Key", "b")))
        .isEqualTo(ActorResolvers.ANONYMOUS);
  }

  @Test
  void aTokenHashSourceIsKeyedAndResolvesUnderOlderKeys() {
    ActorResolver before = ActorResolvers.from(BEARER_OR_API_KEY, KeyRing.of(K1));
    ActorResolver after = ActorResolvers.from(BEARER_OR_API_KEY, KeyRing.of(K2, List.of(K1)));
    Headers h = TestHeaders.of("X-Api-Key", "key-of-alice-123");
    assertThat(after.resolve(h)).isNotEqualTo(before.resolve(h));
    assertThat(after.resolveUnder(h, K1)).isEqualTo(before.resolve(h));
  }

  @Test
  void aCookieIdentifiesByAKeyedHashOfItsValue() {
    ActorResolver r =
        ActorResolvers.from(ActorConfig.of(List.of(ActorSource.cookie("session")), null), KEYS);
    String a = r.resolve(TestHeaders.of("Cookie", "theme=dark; session=s-alice-1"));
    // HTTP/2 may send every cookie in a header of its own.
    String a2 =
        r.resolve(TestHeaders.of("Cookie", "theme=dark", "Cookie", "session=\"s-alice-1\""));
    String b = r.resolve(TestHeaders.of("Cookie", "session=s-bob-2"));
    assertThat(a).startsWith("tok:").isEqualTo(a2).isNotEqualTo(b).doesNotContain("s-alice");
    assertThat(r.resolve(TestHeaders.of("Cookie", "other=1"))).isEqualTo(ActorResolvers.ANONYMOUS);
    assertThatThrownBy(() -> r.resolve(TestHeaders.of("Cookie", "session=a; session=b")))
        .isInstanceOf(IdentityRefused.class)
        .hasMessage("cookie session appears 2 times (expected exactly one)");
  }

  @Test
  void aClientCertificateSubjectIsTheActor() {
    ActorResolver r =
        ActorResolvers.from(
            ActorConfig.of(
                List.of(ActorSource.clientCert(), ActorSource.tokenHash("X-Api-Key")), null),
            KEYS);
    assertThat(r.resolve(TestHeaders.of("X-Api-Key", "k").subject("CN=agent-7,O=Example")))
        .isEqualTo("x509:CN=agent-7,O=Example");
    assertThat(r.resolve(TestHeaders.of("X-Api-Key", "k"))).startsWith("tok:");
    assertThatThrownBy(() -> r.resolve(TestHeaders.of().subject("CN=" + "x".repeat(300))))
        .isInstanceOf(IdentityRefused.class);
  }

  @Test
  void aTrustedHeaderSentTwiceIsRefused() {
    ActorResolver r = ActorResolvers.trustedHeader("X-Forwarded-User");
    assertThat(r.resolve(TestHeaders.of("X-Forwarded-User", "alice"))).isEqualTo("hdr:alice");
    assertThatThrownBy(
            () -> r.resolve(TestHeaders.of("X-Forwarded-User", "alice", "x-forwarded-user", "bob")))
        .isInstanceOf(IdentityRefused.class)
        .hasMessage("header X-Forwarded-User appears 2 times (expected exactly one)")
        .satisfies(
            e ->
                assertThat(((IdentityRefused) e).error().code())
                    .isEqualTo(TallyError.Code.IDENTITY_UNPROVEN));
  }

  @Test
  void aBearerTokenSentTwiceIsRefusedNotHashedByTheFirst() {
    ActorResolver r = ActorResolvers.from(ActorConfig.DEFAULT, KEYS);
    assertThatThrownBy(
            () ->
                r.resolve(
                    TestHeaders.of(
                        "Authorization", "Bearer tok-alpha", "Authorization", "Bearer tok-beta")))
        .isInstanceOf(IdentityRefused.class)
        .hasMessageNotContaining("alpha")
        .hasMessageNotContaining("beta");
  }

  @Test
  void aPresentButUnusableCredentialNeverFallsThroughToALaterSource() {
    ActorResolver r =
        ActorResolvers.from(
            ActorConfig.of(
                List.of(ActorSource.header("X-Forwarded-User"), ActorSource.tokenHash("X-Api-Key")),
                null),
            KEYS);
    assertThatThrownBy(
            () -> r.resolve(TestHeaders.of("X-Forwarded-User", "eve\u202E", "X-Api-Key", "k")))
        .isInstanceOf(IdentityRefused.class);
  }

  @Test
  void anonymousCallersCanBeRefused() {
    ActorResolver r =
        ActorResolvers.from(BEARER_OR_API_KEY.withAnonymous(ActorConfig.Anonymous.REFUSE), KEYS);
    assertThatThrownBy(() -> r.resolve(Headers.NONE))
        .isInstanceOf(IdentityRefused.class)
        .hasMessageContaining("no credential")
        .hasMessageContaining("token_hash(X-Api-Key)");
    assertThat(BEARER_OR_API_KEY.allowsAnonymous()).isTrue();
    assertThat(BEARER_OR_API_KEY.withAnonymous(ActorConfig.Anonymous.REFUSE).allowsAnonymous())
        .isFalse();
    assertThat(ActorConfig.fixed("svc").allowsAnonymous()).isFalse();
  }
}
