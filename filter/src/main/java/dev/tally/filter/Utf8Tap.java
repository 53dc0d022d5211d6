package dev.tally.filter;

/**
 * Encodes characters a servlet writes through {@code getWriter()} as UTF-8 for a {@link BodyTap},
 * including surrogate pairs split across two writes. Not thread-safe.
 */
final class Utf8Tap {
  private final BodyTap tap;
  private final byte[] buf = new byte[512];
  private int n;
  private char pendingHigh;

  Utf8Tap(BodyTap tap) {
    this.tap = tap;
  }

  void chars(CharSequence s, int off, int len) {
    for (int i = off; i < off + len; i++) {
      put(s.charAt(i));
    }
    drain();
  }

  void chars(char[] c, int off, int len) {
    for (int i = off; i < off + len; i++) {
      put(c[i]);
    }
    drain();
  }

  private void put(char c) {
    if (n > buf.length - 4) {
      drain();
    }
    if (pendingHigh != 0) {
      char high = pendingHigh;
      pendingHigh = 0;
      if (Character.isLowSurrogate(c)) {
        int cp = Character.toCodePoint(high, c);
        buf[n++] = (byte) (0xF0 | (cp >> 18));
        buf[n++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
        buf[n++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
        buf[n++] = (byte) (0x80 | (cp & 0x3F));
        return;
      }
      buf[n++] = '?';
    }
    if (c < 0x80) {
      buf[n++] = (byte) c;
    } else if (c < 0x800) {
      buf[n++] = (byte) (0xC0 | (c >> 6));
      buf[n++] = (byte) (0x80 | (c & 0x3F));
    } else if (Character.isHighSurrogate(c)) {
      pendingHigh = c;
    } else if (Character.isLowSurrogate(c)) {
      buf[n++] = '?';
    } else {
      buf[n++] = (byte) (0xE0 | (c >> 12));
      buf[n++] = (byte) (0x80 | ((c >> 6) & 0x3F));
      buf[n++] = (byte) (0x80 | (c & 0x3F));
    }
  }

  private void drain() {
    if (n > 0) {
      tap.bytes(buf, 0, n);
      n = 0;
    }
  }
}
