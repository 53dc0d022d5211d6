package dev.tally.core.audit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.InvalidKeyException;
import java.util.Arrays;
import java.util.Base64;
import java.util.Set;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;

/**
 * The Ed25519 key that signs checkpoints, kept in {@code audit-signing.key} (mode 0600) beside the
 * journals. File format: {@code #} comment lines and one line {@code tally-audit-signing-key-v1
 * ed25519 <key id> <Base64 seed> <Base64 public key>} (both 32 raw bytes, RFC 8032). Never printed:
 * {@link #toString()} shows only the key id.
 */
final class SigningKey {
  static final String TAG = "tally-audit-signing-key-v1";

  private final Ed25519PrivateKeyParameters privateKey;
  private final AuditPublicKey publicKey;

  private SigningKey(Ed25519PrivateKeyParameters privateKey, AuditPublicKey publicKey) {
    this.privateKey = privateKey;
    this.publicKey = publicKey;
  }

  /** A fresh key held only in memory. */
  static SigningKey generate() {
    Ed25519.RawKeyPair pair = Ed25519.generate();
    try {
      return fromRaw(pair.seed(), pair.publicKey());
    } finally {
      Arrays.fill(pair.seed(), (byte) 0);
    }
  }

  /** A fresh key, written to {@code file} (which must not exist) with mode 0600. */
  static SigningKey create(Path file) {
    Ed25519.RawKeyPair pair = Ed25519.generate();
    byte[] content = null;
    try {
      SigningKey key = fromRaw(pair.seed(), pair.publicKey());
      content =
          ("# Tally audit signing key (Ed25519). SECRET: whoever holds it can re-sign the audit\n"
                  + "# journals. Keep it private (mode 0600); the public half is in "
                  + AuditFiles.PUBLIC_KEY
                  + ".\n"
                  + TAG
                  + " "
                  + AuditPublicKey.ALGORITHM
                  + " "
                  + key.publicKey.keyId()
                  + " "
                  + Base64.getEncoder().encodeToString(pair.seed())
                  + " "
                  + Base64.getEncoder().encodeToString(pair.publicKey())
                  + "\n")
              .getBytes(StandardCharsets.UTF_8);
      FileOps.createAtomically(file, content, FileOps.OWNER_ONLY);
      return key;
    } catch (IOException e) {
      throw new AuditException(
          AuditException.Code.KEY, file + ": cannot create the signing key: " + e, e);
    } finally {
      Arrays.fill(pair.seed(), (byte) 0);
      if (content != null) {
        Arrays.fill(content, (byte) 0);
      }
    }
  }

  /** Loads {@code file}; refuses a file that group or others may read. */
  static SigningKey load(Path file) {
    try {
      Set<PosixFilePermission> mode = FileOps.posixMode(file);
      if (mode != null && !FileOps.OWNER_ONLY.containsAll(mode)) {
        throw fail(
            file,
            "mode "
                + PosixFilePermissions.toString(mode)
                + " lets others read the signing key (expected rw------- ; run chmod 600 on it)");
      }
    } catch (IOException e) {
      throw new AuditException(AuditException.Code.KEY, file + ": cannot read: " + e, e);
    }
    return read(file);
  }

  /**
   * Reads {@code file} whatever its mode: for a key mounted by a platform that cannot make it
   * owner-only (a Kubernetes Secret volume), to be copied into an audit directory as an owner-only
   * file ({@link AuditSigningKeys#install}).
   */
  static SigningKey read(Path file) {
    byte[] content = null;
    byte[] seed = null;
    try {
      content = Files.readAllBytes(file);
      String[] fields = keyLine(file, new String(content, StandardCharsets.UTF_8));
      byte[] pub;
      try {
        seed = Base64.getDecoder().decode(fields[3]);
        pub = Base64.getDecoder().decode(fields[4]);
      } catch (IllegalArgumentException e) {
        throw fail(file, "the key is not valid Base64");
      }
      SigningKey key;
      try {
        key = fromRaw(seed, pub);
      } catch (IllegalArgumentException e) {
        throw fail(file, e.getMessage());
      }
      if (!key.publicKey.keyId().equals(fields[2])) {
        throw fail(file, "the key id does not match the key");
      }
      return key;
    } catch (IOException e) {
      throw new AuditException(AuditException.Code.KEY, file + ": cannot read: " + e, e);
    } finally {
      if (content != null) {
        Arrays.fill(content, (byte) 0);
      }
      if (seed != null) {
        Arrays.fill(seed, (byte) 0);
      }
    }
  }

  private static String[] keyLine(Path file, String text) {
    for (String line : text.split("\n")) {
      String l = line.strip();
      if (l.isEmpty() || l.startsWith("#")) {
        continue;
      }
      String[] fields = l.split(" +");
      if (fields.length == 5
          && fields[0].equals(TAG)
          && fields[1].equals(AuditPublicKey.ALGORITHM)) {
        return fields;
      }
      break;
    }
    throw fail(
        file,
        "expected a line \""
            + TAG
            + " "
            + AuditPublicKey.ALGORITHM
            + " <key id> <seed> <public key>\"");
  }

  private static AuditException fail(Path file, String why) {
    return new AuditException(AuditException.Code.KEY, file + ": " + why);
  }

  private static SigningKey fromRaw(byte[] seed, byte[] pub) {
    if (seed.length != Ed25519.KEY_BYTES) {
      throw new IllegalArgumentException("an Ed25519 private key has 32 bytes");
    }
    AuditPublicKey publicKey = AuditPublicKey.of(pub);
    Ed25519PrivateKeyParameters privateKey;
    try {
      privateKey = Ed25519.privateKey(seed);
    } catch (InvalidKeyException e) {
      throw new IllegalArgumentException("not an Ed25519 private key");
    }
    byte[] probe = "tally-audit-key-check".getBytes(StandardCharsets.US_ASCII);
    if (!publicKey.verify(probe, Ed25519.sign(privateKey, probe))) {
      throw new IllegalArgumentException("the public key is not the private key's");
    }
    return new SigningKey(privateKey, publicKey);
  }

  AuditPublicKey publicKey() {
    return publicKey;
  }

  byte[] sign(byte[] message) {
    return Ed25519.sign(privateKey, message);
  }

  @Override
  public String toString() {
    return "SigningKey[" + publicKey.keyId() + "]";
  }
}
