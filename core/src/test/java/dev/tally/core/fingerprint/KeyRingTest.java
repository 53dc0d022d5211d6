package dev.tally.core.fingerprint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

class KeyRingTest {
  static byte[] key(int fill) {
    byte[] b = new byte[32];
    Arrays.fill(b, (byte) fill);
    return b;
  }

  @Test
  void fingerprintIsHmacSha256RenderedWithTheKeyId() throws Exception {
    byte[] record = "{\"a\":1}".getBytes(StandardCharsets.UTF_8);
    KeyRing ring = KeyRing.of(HmacKey.of("k1", key(1)));
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(key(1), "HmacSHA256"));
    String expected = HexFormat.of().formatHex(mac.doFinal(record));
    assertThat(ring.fingerprint(record).render()).isEqualTo("hmac-sha256:k1:" + expected);
    assertThat(Fingerprint.parse(ring.fingerprint(record).render()))
        .isEqualTo(ring.fingerprint(record));
  }

  @Test
  void keysShorterThan32BytesAreRefusedWithoutShowingThem() {
    byte[] shortKey = "0123456789abcdef0123456789abcde".getBytes(StandardCharsets.US_ASCII);
    assertThatThrownBy(() -> HmacKey.of("k1", shortKey))
        .isInstanceOf(KeyException.class)
        .hasMessageContaining("31 bytes")
        .hasMessageContaining("32")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("0123456789"));
    assertThatThrownBy(() -> HmacKey.of("bad id!", key(1))).isInstanceOf(KeyException.class);
  }

  @Test
  void keyMaterialNeverAppearsInToString() {
    byte[] k = "SECRET-KEY-MATERIAL-0123456789ABCDEF".getBytes(StandardCharsets.US_ASCII);
    HmacKey h = HmacKey.of("k1", k);
    KeyRing ring = KeyRing.of(h);
    assertThat(h.toString() + ring).doesNotContain("SECRET").contains("k1");
  }

  @Test
  void olderKeysStillMatchDuringRotationAndForgottenKeysDoNot() {
    byte[] record = "{\"x\":true}".getBytes(StandardCharsets.UTF_8);
    KeyRing before = KeyRing.of(HmacKey.of("k1", key(1)));
    Fingerprint old = before.fingerprint(record);
    KeyRing during = KeyRing.of(HmacKey.of("k2", key(2)), List.of(HmacKey.of("k1", key(1))));
    assertThat(during.fingerprint(record).keyId()).isEqualTo("k2");
    assertThat(during.matches(old, record)).isTrue();
    assertThat(during.olderFingerprints(record)).containsExactly(old);
    assertThat(during.matches(old, "{\"x\":false}".getBytes(StandardCharsets.UTF_8))).isFalse();
    KeyRing after = KeyRing.of(HmacKey.of("k2", key(2)));
    assertThat(after.matches(old, record)).isFalse();
    assertThatThrownBy(
            () -> KeyRing.of(HmacKey.of("k1", key(1)), List.of(HmacKey.of("k1", key(3)))))
        .isInstanceOf(KeyException.class);
  }

  @Test
  void secretReferencesAndTokenHashesAreKeyedAndDomainSeparated() {
    KeyRing a = KeyRing.of(HmacKey.of("k1", key(1)));
    KeyRing b = KeyRing.of(HmacKey.of("k1", key(2)));
    byte[] v = "\"hunter2\"".getBytes(StandardCharsets.UTF_8);
    assertThat(a.secretReference(v)).startsWith("secret:k1:").isEqualTo(a.secretReference(v));
    assertThat(a.secretReference(v)).isNotEqualTo(b.secretReference(v)).doesNotContain("hunter2");
    assertThat(a.tokenHash(v)).startsWith("tok:").isNotEqualTo(a.secretReference(v));
    assertThat(a.fingerprint(v).hex()).doesNotStartWith(a.secretReference(v).substring(10));
  }

  @Test
  void fingerprintParsingRejectsMalformedInput() {
    for (String bad :
        List.of(
            "",
            "sha1:k:00",
            "hmac-sha256:k1",
            "hmac-sha256:k1:zz",
            "hmac-sha256:k1:" + "0".repeat(63))) {
      assertThatThrownBy(() -> Fingerprint.parse(bad))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class);
    }
  }
}
