package dev.tally.core.canonical;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * A strict UTF-8 pre-pass over a JSON document (RFC 3629 §4: no overlong forms, no encoded
 * surrogates, nothing above U+10FFFF), because Jackson's parser decodes some invalid sequences
 * silently. Also notes whether a backslash-u escape occurs, so string values can skip the
 * lone-surrogate check when none can exist.
 */
public final class Utf8Scan {
  /** Valid, and no backslash-u escape occurs. */
  public static final int VALID_NO_ESCAPES = -1;

  /** Valid, and a backslash-u escape may occur. */
  public static final int VALID = -2;

  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final long ONES = 0x0101010101010101L;
  private static final long HIGH_BITS = 0x8080808080808080L;

  private Utf8Scan() {}

  /**
   * {@link #VALID_NO_ESCAPES}, {@link #VALID}, or the offset of the first byte that is not valid
   * UTF-8 (a NUL byte counts as invalid: it is never legal in JSON and would make Jackson guess
   * UTF-16).
   */
  static int scan(byte[] b) {
    return scan(b, 0, b.length);
  }

  /**
   * As {@link #scan(byte[])} for the {@code len} bytes of {@code b} from {@code off}; an invalid
   * byte's offset is its index in {@code b}.
   */
  public static int scan(byte[] b, int off, int len) {
    boolean escapes = false;
    int n = off + len;
    int i = off;
    while (i < n) {
      if (i + 8 <= n) {
        // Eight bytes at a time while they are ASCII other than NUL and backslash.
        long w = (long) LONGS.get(b, i);
        long x = w ^ 0x5C5C5C5C5C5C5C5CL;
        long special = w | (w - ONES) & ~w | (x - ONES) & ~x;
        if ((special & HIGH_BITS) == 0) {
          i += 8;
          continue;
        }
      }
      int c = b[i];
      if (c > 0) {
        if (c == '\\' && i + 1 < n && b[i + 1] == 'u') {
          escapes = true;
        }
        i++;
        continue;
      }
      if (c == 0) {
        return i;
      }
      c &= 0xff;
      if (c < 0xC2) {
        return i;
      }
      if (c < 0xE0) {
        if (i + 1 >= n || !continuation(b[i + 1])) {
          return i;
        }
        i += 2;
      } else if (c < 0xF0) {
        int lo = c == 0xE0 ? 0xA0 : 0x80;
        int hi = c == 0xED ? 0x9F : 0xBF;
        if (i + 2 >= n || !in(b[i + 1], lo, hi) || !continuation(b[i + 2])) {
          return i;
        }
        i += 3;
      } else if (c < 0xF5) {
        int lo = c == 0xF0 ? 0x90 : 0x80;
        int hi = c == 0xF4 ? 0x8F : 0xBF;
        if (i + 3 >= n
            || !in(b[i + 1], lo, hi)
            || !continuation(b[i + 2])
            || !continuation(b[i + 3])) {
          return i;
        }
        i += 4;
      } else {
        return i;
      }
    }
    return escapes ? VALID : VALID_NO_ESCAPES;
  }

  /** Whether the bytes at {@code i} are a UTF-8 encoded surrogate (ED A0..BF xx). */
  static boolean encodedSurrogate(byte[] b, int i) {
    return (b[i] & 0xff) == 0xED && i + 1 < b.length && in(b[i + 1], 0xA0, 0xBF);
  }

  /** Whether {@code b} starts with a UTF-8 byte order mark. */
  static boolean startsWithBom(byte[] b) {
    return startsWithBom(b, 0, b.length);
  }

  /** Whether the {@code len} bytes of {@code b} from {@code off} start with a UTF-8 BOM. */
  public static boolean startsWithBom(byte[] b, int off, int len) {
    return len >= 3
        && (b[off] & 0xff) == 0xEF
        && (b[off + 1] & 0xff) == 0xBB
        && (b[off + 2] & 0xff) == 0xBF;
  }

  private static boolean continuation(byte b) {
    return (b & 0xC0) == 0x80;
  }

  private static boolean in(byte b, int lo, int hi) {
    int v = b & 0xff;
    return v >= lo && v <= hi;
  }
}
