package dev.tally.core.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * Bouncy Castle's Ed25519 ({@link Ed25519}) and the JDK's {@code SunEC}, which signed the audit
 * checkpoints before, agree on keys and signatures (RFC 8032), so journals and key files written by
 * either verify with the other.
 */
class Ed25519InteropTest {
  private static final byte[] X509_PREFIX = HexFormat.of().parseHex("302a300506032b6570032100");
  private static final byte[] PKCS8_PREFIX =
      HexFormat.of().parseHex("302e020100300506032b657004220420");
  private static final byte[] MESSAGE =
      "tally-audit-checkpoint-v1\nactivity\n{\"covers_seq\":7}".getBytes(StandardCharsets.UTF_8);

  private static byte[] raw(byte[] der, byte[] prefix) {
    assertThat(Arrays.copyOf(der, prefix.length)).isEqualTo(prefix);
    return Arrays.copyOfRange(der, prefix.length, der.length);
  }

  private static byte[] der(byte[] prefix, byte[] raw) {
    byte[] out = Arrays.copyOf(prefix, prefix.length + raw.length);
    System.arraycopy(raw, 0, out, prefix.length, raw.length);
    return out;
  }

  @Test
  void aJdkSignatureVerifiesWithBouncyCastle() throws Exception {
    KeyPair jdk = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
    Signature s = Signature.getInstance("Ed25519");
    s.initSign(jdk.getPrivate());
    s.update(MESSAGE);
    byte[] sig = s.sign();

    byte[] pub = raw(jdk.getPublic().getEncoded(), X509_PREFIX);
    assertThat(Ed25519.verify(Ed25519.publicKey(pub), MESSAGE, sig)).isTrue();
    sig[5] ^= 1;
    assertThat(Ed25519.verify(Ed25519.publicKey(pub), MESSAGE, sig)).isFalse();
  }

  @Test
  void aBouncyCastleSignatureVerifiesWithTheJdkAndKeysAgree() throws Exception {
    Ed25519.RawKeyPair pair = Ed25519.generate();
    byte[] sig = Ed25519.sign(Ed25519.privateKey(pair.seed()), MESSAGE);

    KeyFactory f = KeyFactory.getInstance("Ed25519");
    PublicKey pub = f.generatePublic(new X509EncodedKeySpec(der(X509_PREFIX, pair.publicKey())));
    Signature v = Signature.getInstance("Ed25519");
    v.initVerify(pub);
    v.update(MESSAGE);
    assertThat(v.verify(sig)).isTrue();

    // The same seed gives the same public key and, Ed25519 being deterministic, the same signature.
    PrivateKey priv = f.generatePrivate(new PKCS8EncodedKeySpec(der(PKCS8_PREFIX, pair.seed())));
    Signature s = Signature.getInstance("Ed25519");
    s.initSign(priv);
    s.update(MESSAGE);
    assertThat(s.sign()).isEqualTo(sig);
  }

  @Test
  void rfc8032TestVectorOne() throws Exception {
    HexFormat hex = HexFormat.of();
    byte[] seed = hex.parseHex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60");
    byte[] pub = hex.parseHex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a");
    byte[] sig =
        hex.parseHex(
            "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
                + "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b");
    assertThat(Ed25519.sign(Ed25519.privateKey(seed), new byte[0])).isEqualTo(sig);
    assertThat(Ed25519.verify(Ed25519.publicKey(pub), new byte[0], sig)).isTrue();
  }

  @Test
  void malformedKeysAndSignaturesAreRefused() {
    assertThatThrownBy(() -> Ed25519.publicKey(new byte[31]))
        .isInstanceOf(InvalidKeyException.class);
    assertThatThrownBy(() -> Ed25519.privateKey(new byte[33]))
        .isInstanceOf(InvalidKeyException.class);
    Ed25519.RawKeyPair pair = Ed25519.generate();
    assertThat(Ed25519.verify(uncheckedPublicKey(pair.publicKey()), MESSAGE, new byte[63]))
        .isFalse();
  }

  private static org.bouncycastle.crypto.params.Ed25519PublicKeyParameters uncheckedPublicKey(
      byte[] raw) {
    try {
      return Ed25519.publicKey(raw);
    } catch (InvalidKeyException e) {
      throw new AssertionError(e);
    }
  }
}
