package dev.tally.core.execution;

import java.security.SecureRandom;
import java.time.InstantSource;
import java.util.Objects;
import java.util.Random;

/**
 * The identity of one accepted attempt: {@code act_} followed by a ULID (26 Crockford base32
 * characters: 48-bit millisecond time, 80 random bits). Sent upstream as {@code Idempotency-Key}.
 */
public record ExecutionId(String value) implements Comparable<ExecutionId> {
  public static final String PREFIX = "act_";
  private static final char[] CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ".toCharArray();
  private static final Random RANDOM = new SecureRandom();

  public ExecutionId {
    Objects.requireNonNull(value, "value");
    if (!isValid(value)) {
      throw new IllegalArgumentException(
          "invalid execution id (expected act_ followed by a 26-character ULID)");
    }
  }

  /** A fresh id whose time part comes from {@code clock}. */
  public static ExecutionId generate(InstantSource clock) {
    return generate(clock, RANDOM);
  }

  /** A fresh id from the given clock and randomness (tests pass a seeded {@link Random}). */
  public static ExecutionId generate(InstantSource clock, Random random) {
    long time = clock.millis();
    char[] out = new char[PREFIX.length() + 26];
    PREFIX.getChars(0, PREFIX.length(), out, 0);
    int p = PREFIX.length();
    for (int i = 9; i >= 0; i--) {
      out[p + i] = CROCKFORD[(int) (time & 31)];
      time >>>= 5;
    }
    long hi = random.nextLong();
    long lo = random.nextLong();
    // 80 random bits: 16 chars of 5 bits; take 40 bits from each long.
    for (int i = 0; i < 8; i++) {
      out[p + 10 + i] = CROCKFORD[(int) ((hi >>> (5 * i)) & 31)];
      out[p + 18 + i] = CROCKFORD[(int) ((lo >>> (5 * i)) & 31)];
    }
    return new ExecutionId(new String(out));
  }

  /** Parses an id from untrusted input; throws {@link IllegalArgumentException} if malformed. */
  public static ExecutionId parse(String value) {
    return new ExecutionId(value);
  }

  /** Whether {@code value} is a well-formed execution id. */
  public static boolean isValid(String value) {
    if (value == null || value.length() != PREFIX.length() + 26 || !value.startsWith(PREFIX)) {
      return false;
    }
    // The first ULID character carries only 3 bits of the 48-bit time.
    if (value.charAt(PREFIX.length()) > '7') {
      return false;
    }
    for (int i = PREFIX.length(); i < value.length(); i++) {
      char c = value.charAt(i);
      boolean ok =
          (c >= '0' && c <= '9')
              || (c >= 'A' && c <= 'Z' && c != 'I' && c != 'L' && c != 'O' && c != 'U');
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  /** Milliseconds since the epoch encoded in the ULID. */
  public long timestampMillis() {
    long t = 0;
    for (int i = 0; i < 10; i++) {
      char c = value.charAt(PREFIX.length() + i);
      t = (t << 5) | decode(c);
    }
    return t;
  }

  private static int decode(char c) {
    for (int i = 0; i < CROCKFORD.length; i++) {
      if (CROCKFORD[i] == c) {
        return i;
      }
    }
    throw new IllegalArgumentException("not a Crockford base32 character");
  }

  @Override
  public int compareTo(ExecutionId o) {
    return value.compareTo(o.value);
  }

  @Override
  public String toString() {
    return value;
  }
}
