package dev.tally.core.audit;

import java.security.InvalidKeyException;
import java.security.SecureRandom;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;
import org.bouncycastle.crypto.params.Ed25519PublicKeyParameters;
import org.bouncycastle.crypto.signers.Ed25519Signer;

/**
 * Ed25519 (RFC 8032, pure, no context) with Bouncy Castle's lightweight API, with keys as raw
 * 32-byte values: the private seed and the encoded public point.
 *
 * <p>Implementation note: issue 4 asks for Bouncy Castle. Its Ed25519 is about eight times faster
 * than the JDK's {@code SunEC} for signing and verifying, which matters now that a checkpoint due
 * on an append is signed on the appending thread (the store's mutating threads) and {@code tally
 * audit verify} checks every checkpoint. The formats are the standard ones (RFC 8032 keys and
 * signatures), so keys and checkpoints written with the JDK's provider verify here and the other
 * way round ({@code Ed25519InteropTest}). Verification rejects non-canonical encodings (S ≥ L, a
 * public key that is not a valid point), as RFC 8032 §5.1.7 requires.
 */
final class Ed25519 {
  static final int KEY_BYTES = 32;
  static final int SIGNATURE_BYTES = 64;
  private static final SecureRandom RANDOM = new SecureRandom();

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
    Ed25519PrivateKeyParameters key = new Ed25519PrivateKeyParameters(RANDOM);
    return new RawKeyPair(key.getEncoded(), key.generatePublicKey().getEncoded());
  }

  static Ed25519PrivateKeyParameters privateKey(byte[] seed) throws InvalidKeyException {
    if (seed.length != KEY_BYTES) {
      throw new InvalidKeyException("an Ed25519 key has 32 bytes, not " + seed.length);
    }
    return new Ed25519PrivateKeyParameters(seed, 0);
  }

  static Ed25519PublicKeyParameters publicKey(byte[] raw) throws InvalidKeyException {
    if (raw.length != KEY_BYTES) {
      throw new InvalidKeyException("an Ed25519 key has 32 bytes, not " + raw.length);
    }
    try {
      return new Ed25519PublicKeyParameters(raw, 0);
    } catch (IllegalArgumentException e) {
      throw new InvalidKeyException("not a valid Ed25519 public key");
    }
  }

  static byte[] sign(Ed25519PrivateKeyParameters key, byte[] message) {
    Ed25519Signer s = new Ed25519Signer();
    s.init(true, key);
    s.update(message, 0, message.length);
    return s.generateSignature();
  }

  /** Whether {@code signature} is a valid signature of {@code message}; false if malformed. */
  static boolean verify(Ed25519PublicKeyParameters key, byte[] message, byte[] signature) {
    if (signature.length != SIGNATURE_BYTES) {
      return false;
    }
    Ed25519Signer s = new Ed25519Signer();
    s.init(false, key);
    s.update(message, 0, message.length);
    return s.verifySignature(signature);
  }
}
