package dev.tally.core.audit;

import java.security.GeneralSecurityException;
import java.security.InvalidKeyException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.SignatureException;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * Ed25519 (RFC 8032) over the JDK's {@code SunEC} provider, with keys as raw 32-byte values.
 *
 * <p>Implementation note: the JDK exchanges keys in DER; for Ed25519 both encodings are a fixed
 * prefix followed by the raw key (RFC 8410 §7 and §10.3), so raw keys are wrapped and unwrapped by
 * prefix. The JDK provider is used instead of Bouncy Castle because it is enough: it implements RFC
 * 8032 with the non-malleability checks, ships with every Java 15+ runtime (module {@code
 * jdk.crypto.ec}), and a signature is needed only once per checkpoint (~0.4 ms each on the
 * development machine, Bouncy Castle ~0.05 ms), which does not justify an 8 MB dependency.
 */
final class Ed25519 {
  static final int KEY_BYTES = 32;
  static final int SIGNATURE_BYTES = 64;
  private static final String ALGORITHM = "Ed25519";
  private static final byte[] X509_PREFIX = HexFormat.of().parseHex("302a300506032b6570032100");
  private static final byte[] PKCS8_PREFIX =
      HexFormat.of().parseHex("302e020100300506032b657004220420");

  private Ed25519() {}

  /** A raw key pair: the 32-byte private seed and the 32-byte public key. */
  record RawKeyPair(byte[] seed, byte[] publicKey) {
    @Override
    public String toString() {
      return "RawKeyPair[Ed25519]";
    }
  }

  /** A fresh key pair. */
  static RawKeyPair generate() {
    try {
      KeyPair pair = KeyPairGenerator.getInstance(ALGORITHM).generateKeyPair();
      return new RawKeyPair(
          unwrap(pair.getPrivate().getEncoded(), PKCS8_PREFIX, "private"),
          unwrap(pair.getPublic().getEncoded(), X509_PREFIX, "public"));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("this Java runtime has no Ed25519 (module jdk.crypto.ec)", e);
    }
  }

  static PrivateKey privateKey(byte[] seed) throws InvalidKeyException {
    return (PrivateKey) decode(seed, PKCS8_PREFIX, true);
  }

  static PublicKey publicKey(byte[] raw) throws InvalidKeyException {
    return (PublicKey) decode(raw, X509_PREFIX, false);
  }

  static byte[] sign(PrivateKey key, byte[] message) {
    try {
      Signature s = Signature.getInstance(ALGORITHM);
      s.initSign(key);
      s.update(message);
      return s.sign();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("Ed25519 signing failed", e);
    }
  }

  /** Whether {@code signature} is a valid signature of {@code message}; false if malformed. */
  static boolean verify(PublicKey key, byte[] message, byte[] signature) {
    if (signature.length != SIGNATURE_BYTES) {
      return false;
    }
    try {
      Signature s = Signature.getInstance(ALGORITHM);
      s.initVerify(key);
      s.update(message);
      return s.verify(signature);
    } catch (SignatureException | InvalidKeyException e) {
      return false;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("this Java runtime has no Ed25519 (module jdk.crypto.ec)", e);
    }
  }

  private static Object decode(byte[] raw, byte[] prefix, boolean isPrivate)
      throws InvalidKeyException {
    if (raw.length != KEY_BYTES) {
      throw new InvalidKeyException("an Ed25519 key has 32 bytes, not " + raw.length);
    }
    byte[] der = Arrays.copyOf(prefix, prefix.length + KEY_BYTES);
    System.arraycopy(raw, 0, der, prefix.length, KEY_BYTES);
    try {
      KeyFactory f = KeyFactory.getInstance(ALGORITHM);
      return isPrivate
          ? f.generatePrivate(new PKCS8EncodedKeySpec(der))
          : f.generatePublic(new X509EncodedKeySpec(der));
    } catch (GeneralSecurityException e) {
      throw new InvalidKeyException("not a valid Ed25519 key", e);
    } finally {
      Arrays.fill(der, (byte) 0);
    }
  }

  private static byte[] unwrap(byte[] der, byte[] prefix, String what) {
    if (der.length != prefix.length + KEY_BYTES
        || !Arrays.equals(der, 0, prefix.length, prefix, 0, prefix.length)) {
      throw new IllegalStateException("unexpected DER encoding of an Ed25519 " + what + " key");
    }
    byte[] raw = Arrays.copyOfRange(der, prefix.length, der.length);
    Arrays.fill(der, (byte) 0);
    return raw;
  }
}
