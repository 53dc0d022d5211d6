package dev.tally.core.audit;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * A growable byte buffer that journal lines are written into in place: {@link FlatEntry} writes an
 * entry's canonical bytes, {@link EntryCodec#completeLine} turns them into the line. Not
 * thread-safe.
 *
 * <p>Writers reserve room first and then fill the array themselves: {@code byte[] b =
 * out.reserve(n); int p = out.size(); … b[p++] = …; out.size(p);}.
 */
final class LineBuffer {
  private static final byte[] HEX = {
    '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'a', 'b', 'c', 'd', 'e', 'f'
  };
  private static final int MAX_ARRAY = Integer.MAX_VALUE - 8;

  private byte[] buf;
  private int size;

  LineBuffer(int capacity) {
    buf = new byte[capacity];
  }

  int size() {
    return size;
  }

  /**
   * Sets the number of valid bytes: after filling a reserved array, or to drop bytes at the end.
   */
  void size(int newSize) {
    if (newSize < 0 || newSize > buf.length) {
      throw new IndexOutOfBoundsException(newSize);
    }
    size = newSize;
  }

  void clear() {
    size = 0;
  }

  /** Makes room for {@code extra} more bytes and returns the array to write them into. */
  byte[] reserve(long extra) {
    if (extra > buf.length - size) {
      long need = size + extra;
      if (need > MAX_ARRAY) {
        throw new OutOfMemoryError("journal buffer larger than a Java array");
      }
      buf = Arrays.copyOf(buf, (int) Math.max(need, Math.min(2L * buf.length, MAX_ARRAY)));
    }
    return buf;
  }

  void put(byte b) {
    reserve(1)[size++] = b;
  }

  void put(byte[] bytes) {
    System.arraycopy(bytes, 0, reserve(bytes.length), size, bytes.length);
    size += bytes.length;
  }

  /** Writes {@code bytes} as lowercase hex digits. */
  void putHex(byte[] bytes) {
    byte[] b = reserve(2L * bytes.length);
    int p = size;
    for (byte x : bytes) {
      b[p++] = HEX[(x >> 4) & 0xf];
      b[p++] = HEX[x & 0xf];
    }
    size = p;
  }

  /** The byte at {@code index} (below {@link #size()}). */
  byte get(int index) {
    if (index >= size) {
      throw new IndexOutOfBoundsException(index);
    }
    return buf[index];
  }

  /** The backing array; valid bytes are those below {@link #size()}. */
  byte[] array() {
    return buf;
  }

  byte[] toByteArray(int from) {
    return Arrays.copyOfRange(buf, from, size);
  }

  /** The valid bytes as a buffer sharing this array (for a channel write). */
  ByteBuffer asByteBuffer() {
    return ByteBuffer.wrap(buf, 0, size);
  }
}
