package dev.tally.core.store.journal;

import java.io.OutputStream;
import java.util.Arrays;

/**
 * A growable byte array that builds one frame: {@link #begin()} reserves the frame header, records
 * are appended, {@link #finish()} fills in length and checksum. Not thread-safe; each writer owns
 * one.
 */
final class FrameBuffer extends OutputStream {
  private byte[] buf;
  private int size;

  FrameBuffer(int initialCapacity) {
    buf = new byte[Math.max(64, initialCapacity)];
  }

  void begin() {
    size = JournalFormat.FRAME_HEADER_BYTES;
  }

  /** Bytes of records appended since {@link #begin()}. */
  int payloadSize() {
    return size - JournalFormat.FRAME_HEADER_BYTES;
  }

  /** Fills in the frame header; the frame is {@code array()[0..size())}. */
  void finish() {
    int length = payloadSize();
    JournalFormat.writeInt(buf, 0, length);
    JournalFormat.writeInt(
        buf, 4, JournalFormat.checksum(length, buf, JournalFormat.FRAME_HEADER_BYTES));
  }

  byte[] array() {
    return buf;
  }

  int size() {
    return size;
  }

  /** Drops everything from {@code mark} on (an entry that failed to encode). */
  void truncate(int mark) {
    size = mark;
  }

  /** Releases a buffer that grew beyond {@code max} for one large frame. */
  void shrinkTo(int max) {
    if (buf.length > max) {
      buf = new byte[max];
    }
  }

  /** Reserves four bytes for an int written later with {@link #putIntAt}; returns their offset. */
  int reserveInt() {
    ensure(4);
    int at = size;
    size += 4;
    return at;
  }

  void putIntAt(int at, int v) {
    JournalFormat.writeInt(buf, at, v);
  }

  void putInt(int v) {
    putIntAt(reserveInt(), v);
  }

  void putLong(long v) {
    putInt((int) (v >>> 32));
    putInt((int) v);
  }

  /**
   * Appends a string exactly (any Java string, lone surrogates included): {@code i32 n} then, for
   * {@code n >= 0}, {@code n} bytes of ASCII; for {@code n < 0}, {@code -n} UTF-16BE code units.
   * The ids, names and times the journal mostly holds are ASCII and copied without an intermediate
   * array.
   */
  void putString(String s) {
    int n = s.length();
    int lengthAt = reserveInt();
    ensure(n);
    int start = size;
    for (int i = 0; i < n; i++) {
      char c = s.charAt(i);
      if (c >= 0x80) {
        size = start;
        ensure(2 * n);
        for (int j = 0; j < n; j++) {
          char d = s.charAt(j);
          buf[size++] = (byte) (d >>> 8);
          buf[size++] = (byte) d;
        }
        putIntAt(lengthAt, -n);
        return;
      }
      buf[size++] = (byte) c;
    }
    putIntAt(lengthAt, n);
  }

  void putShort(int v) {
    ensure(2);
    buf[size++] = (byte) (v >>> 8);
    buf[size++] = (byte) v;
  }

  @Override
  public void write(int b) {
    ensure(1);
    buf[size++] = (byte) b;
  }

  @Override
  public void write(byte[] b, int off, int len) {
    ensure(len);
    System.arraycopy(b, off, buf, size, len);
    size += len;
  }

  private void ensure(int more) {
    long need = (long) size + more;
    if (need > buf.length) {
      if (need > Integer.MAX_VALUE - 16) {
        throw new IllegalStateException("frame larger than 2 GiB");
      }
      buf =
          Arrays.copyOf(
              buf, (int) Math.max(need, Math.min(Integer.MAX_VALUE - 16L, buf.length * 2L)));
    }
  }
}
