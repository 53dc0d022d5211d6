package dev.tally.core.fingerprint;

import java.util.Arrays;
import java.util.Objects;
import java.util.regex.Pattern;
import javax.crypto.spec.SecretKeySpec;

/**
 * One HMAC-SHA256 key with its id. The key bytes never appear in {@link #toString()}, an exception
 * message or a log line.
 */
public final class HmacKey {
  /** Keys shorter than this are refused: RFC 2104 asks for at least the hash output length. */
  public static final int MIN_BYTES = 32;

  private static final Pattern ID = Pattern.compile("[A-Za-z0-9._-]{1,64}");

  private final String id;
  private final SecretKeySpec spec;

  private HmacKey(String id, byte[] material) {
    this.id = id;
    this.spec = new SecretKeySpec(material, "HmacSHA256");
  }

  /**
   * A key from raw bytes (copied). Throws {@link KeyException} if the id is malformed or the key is
   * shorter than {@link #MIN_BYTES}; the message says the length, never the bytes.
   */
  public static HmacKey of(String id, byte[] material) {
    Objects.requireNonNull(material, "material");
    if (id == null || !ID.matcher(id).matches()) {
      throw new KeyException(
          "hmac key id: "
              + (id == null ? "null" : '"' + id + '"')
              + " (expected 1-64 characters of A-Z a-z 0-9 . _ -)");
    }
    if (material.length < MIN_BYTES) {
      throw new KeyException(
          "hmac key "
              + id
              + ": "
              + material.length
              + " bytes (expected at least "
              + MIN_BYTES
              + " bytes of key material)");
    }
    return new HmacKey(id, Arrays.copyOf(material, material.length));
  }

  public String id() {
    return id;
  }

  SecretKeySpec spec() {
    return spec;
  }

  @Override
  public String toString() {
    return "HmacKey[" + id + ", <redacted>]";
  }
}
