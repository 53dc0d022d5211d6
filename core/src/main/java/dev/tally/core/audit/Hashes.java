package dev.tally.core.audit;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** SHA-256 and lowercase hex, as the journals use them. */
final class Hashes {
  static final int SHA256_BYTES = 32;
  static final String ZERO_HASH = "0".repeat(2 * SHA256_BYTES);
  private static final HexFormat HEX = HexFormat.of();

  private Hashes() {}

  static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK has no SHA-256", e);
    }
  }

  static byte[] sha256(byte[] data) {
    return sha256().digest(data);
  }

  static String hex(byte[] bytes) {
    return HEX.formatHex(bytes);
  }

  /** Whether {@code s} is exactly 64 lowercase hex digits. */
  static boolean isHash(String s) {
    if (s == null || s.length() != 2 * SHA256_BYTES) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
        return false;
      }
    }
    return true;
  }

  /** The bytes of a hash accepted by {@link #isHash(String)}. */
  static byte[] unhex(String hash) {
    return HEX.parseHex(hash);
  }
}
