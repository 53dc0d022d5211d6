package dev.tally.core.console;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The operator's admin token, as both adapters check it: a request's {@code Authorization: Bearer
 * <token>} is compared in constant time over SHA-256 digests, so that not even the token's length
 * leaks. Holds only the digest; {@link #toString()} names nothing.
 */
public final class AdminToken {
  /** The fewest characters an admin token may have. */
  public static final int MIN_CHARS = 32;

  private final byte[] digest;

  private AdminToken(byte[] digest) {
    this.digest = digest;
  }

  /**
   * The token {@code token}.
   *
   * @throws IllegalArgumentException when it is shorter than {@value #MIN_CHARS} characters (the
   *     message names no character of it)
   */
  public static AdminToken of(String token) {
    if (token == null || token.strip().length() < MIN_CHARS) {
      throw new IllegalArgumentException(
          "admin token: <redacted> (expected: at least " + MIN_CHARS + " characters)");
    }
    return new AdminToken(sha256(token.strip()));
  }

  /** Whether {@code authorization} (a request's header, may be null) carries this token. */
  public boolean matches(String authorization) {
    if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return false;
    }
    return MessageDigest.isEqual(sha256(authorization.substring(7).strip()), digest);
  }

  private static byte[] sha256(String s) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  @Override
  public String toString() {
    return "AdminToken[<redacted>]";
  }
}
