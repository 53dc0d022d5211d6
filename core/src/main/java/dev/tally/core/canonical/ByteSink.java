package dev.tally.core.canonical;

import java.util.Arrays;

/** A growable byte buffer that the canonical writer reuses across calls on one thread. */
final class ByteSink {
  static final int INITIAL = 1024;

  /** Buffers grown beyond this are dropped after use so an idle thread keeps little memory. */
  static final int RETAIN_MAX = 64 * 1024;

  byte[] buf = new byte[INITIAL];
  int len;

  /** Makes room for {@code extra} more bytes. */
  void ensure(int extra) {
    if (extra > buf.length - len) {
      grow(extra);
    }
  }

  private void grow(int extra) {
    long need = (long) len + extra;
    if (need > Integer.MAX_VALUE - 8) {
      throw new OutOfMemoryError("canonical form larger than a Java array");
    }
    long size = Math.max(need, Math.min((long) buf.length * 2, Integer.MAX_VALUE - 8));
    buf = Arrays.copyOf(buf, (int) size);
  }

  void write(byte b) {
    ensure(1);
    buf[len++] = b;
  }

  /** Appends ASCII text. */
  void writeAscii(String s) {
    int n = s.length();
    ensure(n);
    for (int i = 0; i < n; i++) {
      buf[len++] = (byte) s.charAt(i);
    }
  }

  /** Appends the decimal digits of {@code v} (with a leading {@code -} if negative). */
  void writeLong(long v) {
    if (v == Long.MIN_VALUE) {
      writeAscii("-9223372036854775808");
      return;
    }
    ensure(20);
    if (v < 0) {
      buf[len++] = '-';
      v = -v;
    }
    int digits = digitCount(v);
    int end = len + digits;
    for (int p = end - 1; p >= len; p--) {
      buf[p] = (byte) ('0' + (int) (v % 10));
      v /= 10;
    }
    len = end;
  }

  static int digitCount(long v) {
    int n = 1;
    while (v >= 10) {
      v /= 10;
      n++;
    }
    return n;
  }

  byte[] toByteArray() {
    return Arrays.copyOf(buf, len);
  }

  /** Empties the sink, dropping a buffer grown past {@link #RETAIN_MAX}. */
  void reset() {
    len = 0;
    if (buf.length > RETAIN_MAX) {
      buf = new byte[INITIAL];
    }
  }
}
