package dev.tally.core.audit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.InvalidKeyException;
import java.util.Arrays;
import java.util.Base64;
import org.bouncycastle.crypto.params.Ed25519PublicKeyParameters;

/**
 * The Ed25519 public key that verifies the audit journals' checkpoints.
 *
 * <p>Text format ({@code audit-public.key}, UTF-8): lines starting with {@code #} and blank lines
 * are comments; exactly one key line
 *
 * <pre>tally-audit-key-v1 ed25519 &lt;key id&gt; &lt;key&gt;</pre>
 *
 * where {@code <key>} is the standard Base64 (RFC 4648 §4, padded) of the 32-byte public key of RFC
 * 8032 §5.1.5 and {@code <key id>} is the first 16 hex digits of the SHA-256 of those 32 bytes.
 * Checkpoints name the key id that signed them. {@code tally audit key} prints this file; keep a
 * copy away from the journal, since a verifier that takes the key from beside the journal only
 * proves the journal consistent with that key.
 */
public final class AuditPublicKey {
  static final String TAG = "tally-audit-key-v1";
  static final String ALGORITHM = "ed25519";

  private final byte[] raw;
  private final String keyId;
  private final Ed25519PublicKeyParameters key;

  private AuditPublicKey(byte[] raw) {
    this.raw = raw.clone();
    this.keyId = keyIdOf(raw);
    try {
      this.key = Ed25519.publicKey(raw);
    } catch (InvalidKeyException e) {
      throw new IllegalArgumentException("not a valid Ed25519 public key", e);
    }
  }

  /** The key with these 32 raw bytes (RFC 8032 encoding). */
  public static AuditPublicKey of(byte[] raw) {
    if (raw.length != Ed25519.KEY_BYTES) {
      throw new IllegalArgumentException("an Ed25519 public key has 32 bytes, not " + raw.length);
    }
    return new AuditPublicKey(raw);
  }

  /** Reads a key file in the text format above; the error names the file and what was wrong. */
  public static AuditPublicKey read(Path file) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw new AuditException(AuditException.Code.KEY, file + ": no such public key file");
    } catch (IOException e) {
      throw new AuditException(AuditException.Code.KEY, file + ": cannot read: " + e, e);
    }
    try {
      return parse(text);
    } catch (IllegalArgumentException e) {
      throw new AuditException(AuditException.Code.KEY, file + ": " + e.getMessage());
    }
  }

  /** Parses the text format above; throws {@link IllegalArgumentException} naming the problem. */
  public static AuditPublicKey parse(String text) {
    String[] found = null;
    String[] lines = text.split("\n", -1);
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i].strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      if (found != null) {
        throw new IllegalArgumentException("line " + (i + 1) + ": a second key line");
      }
      found = line.split(" +");
      if (found.length != 4 || !found[0].equals(TAG) || !found[1].equals(ALGORITHM)) {
        throw new IllegalArgumentException(
            "line " + (i + 1) + ": expected \"" + TAG + " " + ALGORITHM + " <key id> <base64>\"");
      }
    }
    if (found == null) {
      throw new IllegalArgumentException("no key line (expected \"" + TAG + " …\")");
    }
    byte[] raw;
    try {
      raw = Base64.getDecoder().decode(found[3]);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("the key is not valid Base64");
    }
    AuditPublicKey key = of(raw);
    if (!key.keyId.equals(found[2])) {
      throw new IllegalArgumentException("the key id does not match the key");
    }
    return key;
  }

  static String keyIdOf(byte[] raw) {
    return Hashes.hex(Hashes.sha256(raw)).substring(0, 16);
  }

  /** The key id: the first 16 hex digits of the SHA-256 of the raw key. */
  public String keyId() {
    return keyId;
  }

  /** The 32 raw bytes. */
  public byte[] raw() {
    return raw.clone();
  }

  /** The key line of the text format. */
  public String line() {
    return TAG + " " + ALGORITHM + " " + keyId + " " + Base64.getEncoder().encodeToString(raw);
  }

  /** The whole file content, with a comment saying what it is. */
  public String toText() {
    return "# Tally audit public key: verifies the signed checkpoints of the audit journals.\n"
        + "# Format: \""
        + TAG
        + " "
        + ALGORITHM
        + " <key id> <Base64 of the 32-byte RFC 8032 public key>\".\n"
        + "# Check a journal with: tally audit verify DIR --public-key FILE\n"
        + line()
        + "\n";
  }

  /** Whether {@code signature} is a valid Ed25519 signature of {@code message} by this key. */
  public boolean verify(byte[] message, byte[] signature) {
    return Ed25519.verify(key, message, signature);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof AuditPublicKey other && Arrays.equals(raw, other.raw);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(raw);
  }

  @Override
  public String toString() {
    return "AuditPublicKey[" + ALGORITHM + " " + keyId + "]";
  }
}
