package dev.tally.core.store.journal;

import dev.tally.core.store.internal.ByteWriter;

/**
 * A growable byte array that builds one frame: {@link #begin()} reserves the frame header, records
 * are appended, {@link #finish()} fills in length and checksum. Not thread-safe; each writer owns
 * one.
 */
final class FrameBuffer extends ByteWriter {
  FrameBuffer(int initialCapacity) {
    super(initialCapacity);
  }

  void begin() {
    truncate(JournalFormat.FRAME_HEADER_BYTES);
  }

  /** Bytes of records appended since {@link #begin()}. */
  int payloadSize() {
    return size() - JournalFormat.FRAME_HEADER_BYTES;
  }

  /** Fills in the frame header; the frame is {@code array()[0..size())}. */
  void finish() {
    int length = payloadSize();
    byte[] buf = array();
    JournalFormat.writeInt(buf, 0, length);
    JournalFormat.writeInt(
        buf, 4, JournalFormat.checksum(length, buf, JournalFormat.FRAME_HEADER_BYTES));
  }

  /** Releases a buffer that grew beyond {@code max} for one large frame. */
  void shrinkTo(int max) {
    shrinkBufferTo(max);
  }
}
