package dev.tally.core.store.internal;

import java.io.OutputStream;
import java.util.Arrays;

/**
 * A growable big-endian byte array: the journal's frames and the packed form of retained records
 * ({@link ExecutionBinary}) are written with it. Not thread-safe; each writer owns one.
 */
public class ByteWriter extends OutputStream {
  private byte[] buf;
  private int size;

  public ByteWriter(int initialCapacity) {
    buf = new byte[Math.max(64, initialCapacity)];
  }

  /** The buffer; the written bytes are {@code array()[0..size())}. */
  public final byte[] array() {
    return buf;
  }

  public final int size() {
    return size;
  }

  /** A copy of the written bytes. */
  public final byte[] toByteArray() {
    return Arrays.copyOf(buf, size);
  }

  /** Drops everything from {@code mark} on. */
  public final void truncate(int mark) {
    size = mark;
  }

  /** Replaces the buffer by an empty one of {@code capacity} bytes when it is larger. */
  protected final void shrinkBufferTo(int capacity) {
    if (buf.length > capacity) {
      buf = new byte[capacity];
    }
  }

  /** Reserves four bytes for an int written later with {@link #putIntAt}; returns their offset. */
  public final int reserveInt() {
    ensure(4);
    int at = size;
    size += 4;
    return at;
  }

  public final void putIntAt(int at, int v) {
    writeInt(buf, at, v);
  }

  public final void putInt(int v) {
    putIntAt(reserveInt(), v);
  }

  public final void putLong(long v) {
    putInt((int) (v >>> 32));
    putInt((int) v);
  }

  /**
   * Appends a string exactly (any Java string, lone surrogates included): {@code i32 n} then, for
   * {@code n >= 0}, {@code n} bytes of ASCII; for {@code n < 0}, {@code -n} UTF-16BE code units.
   * The ids, names and times records mostly hold are ASCII and copied without an intermediate
   * array.
   */
  public final void putString(String s) {
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

  public final void putShort(int v) {
    ensure(2);
    buf[size++] = (byte) (v >>> 8);
    buf[size++] = (byte) v;
  }

  @Override
  public final void write(int b) {
    ensure(1);
    buf[size++] = (byte) b;
  }

  @Override
  public final void write(byte[] b, int off, int len) {
    ensure(len);
    System.arraycopy(b, off, buf, size, len);
    size += len;
  }

  private void ensure(int more) {
    long need = (long) size + more;
    if (need > buf.length) {
      if (need > Integer.MAX_VALUE - 16) {
        throw new IllegalStateException("buffer larger than 2 GiB");
      }
      buf =
          Arrays.copyOf(
              buf, (int) Math.max(need, Math.min(Integer.MAX_VALUE - 16L, buf.length * 2L)));
    }
  }

  /** The big-endian int at {@code b[p..p+4)}. */
  public static int readInt(byte[] b, int p) {
    return ((b[p] & 0xff) << 24)
        | ((b[p + 1] & 0xff) << 16)
        | ((b[p + 2] & 0xff) << 8)
        | (b[p + 3] & 0xff);
  }

  /** Writes {@code v} big-endian at {@code b[p..p+4)}. */
  public static void writeInt(byte[] b, int p, int v) {
    b[p] = (byte) (v >>> 24);
    b[p + 1] = (byte) (v >>> 16);
    b[p + 2] = (byte) (v >>> 8);
    b[p + 3] = (byte) v;
  }
}
