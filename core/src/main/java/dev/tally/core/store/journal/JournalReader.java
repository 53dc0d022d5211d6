package dev.tally.core.store.journal;

import dev.tally.core.store.StoreException;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

/**
 * Reads the frames of one journal file and hands each record to a sink.
 *
 * <p>Implementation note: a frame is written with one write and made durable by one fsync, and
 * nothing is appended after a frame before its fsync returned. A crash can therefore leave a bad
 * frame (short, or failing its checksum) only at the very end of the newest segment, with nothing
 * valid after it: a <em>torn tail</em>, which {@link #read} reports so the caller can truncate it.
 * A bad frame followed by a valid one, a bad frame in any other file, or a frame whose checksum
 * holds but whose records do not decode, is corruption: reading stops with {@link
 * StoreException.Code#CORRUPT} naming the file and byte offset.
 *
 * <p>Files of format 3 and later may end in zeros the writer allocated ahead of its frames; a frame
 * header of zeros followed only by zeros is the clean end of such a file, not a torn tail. A zero
 * header followed by anything else is a bad frame like any other.
 */
final class JournalReader {
  /**
   * How a file ended: {@code validEnd} is the end of the last whole frame; {@code tornBytes} is how
   * many bytes follow it (zero when the file ended cleanly); {@code zeroBytes} is how many
   * preallocated zero bytes follow a clean end.
   */
  record End(long validEnd, long tornBytes, long zeroBytes, int formatVersion) {}

  private static final int MAX_TAIL_SCAN = Integer.MAX_VALUE - 64;
  private static final int ZERO_SCAN_CHUNK = 1 << 16;

  private JournalReader() {}

  /**
   * Reads {@code file} (whose header must name {@code kind} and {@code seq}). With {@code
   * tolerateTornTail} a bad tail with nothing valid after it is reported in the result instead of
   * refused.
   */
  static End read(
      FileChannel ch,
      Path file,
      short kind,
      long seq,
      boolean tolerateTornTail,
      RecordCodec.Sink sink)
      throws IOException {
    long size = ch.size();
    ByteBuffer header = ByteBuffer.allocate(JournalFormat.HEADER_BYTES);
    if (size < JournalFormat.HEADER_BYTES) {
      throw corrupt(file, 0, "file shorter than its header");
    }
    readFully(ch, header, 0);
    String bad = JournalFormat.checkHeader(header.flip(), kind, seq);
    if (bad != null) {
      throw corrupt(file, 0, bad);
    }
    int version = JournalFormat.version(header);
    long pos = JournalFormat.HEADER_BYTES;
    ByteBuffer frameHeader = ByteBuffer.allocate(JournalFormat.FRAME_HEADER_BYTES);
    byte[] payload = new byte[4096];
    while (pos < size) {
      String problem = null;
      int length = 0;
      if (size - pos < JournalFormat.FRAME_HEADER_BYTES) {
        problem = "frame header cut short";
      } else {
        readFully(ch, frameHeader.clear(), pos);
        length = frameHeader.getInt(0);
        int crc = frameHeader.getInt(4);
        if (length == 0
            && crc == 0
            && JournalFormat.allowsZeroTail(version)
            && zerosToEnd(ch, pos + JournalFormat.FRAME_HEADER_BYTES, size)) {
          return new End(pos, 0, size - pos, version);
        }
        if (length <= 0 || length > size - pos - JournalFormat.FRAME_HEADER_BYTES) {
          problem = length <= 0 ? "frame length " + length + " out of range" : "frame cut short";
        } else {
          if (payload.length < length) {
            payload = new byte[length];
          }
          readFully(
              ch, ByteBuffer.wrap(payload, 0, length), pos + JournalFormat.FRAME_HEADER_BYTES);
          if (JournalFormat.checksum(length, payload, 0) != crc) {
            problem = "frame checksum mismatch";
          }
        }
      }
      if (problem != null) {
        if (!tolerateTornTail) {
          throw corrupt(file, pos, problem);
        }
        long next = nextValidFrame(ch, pos + 1, size);
        if (next >= 0) {
          throw corrupt(
              file,
              pos,
              problem
                  + ", followed by a valid frame at byte "
                  + next
                  + " (corruption in the middle, not a torn write)");
        }
        return new End(pos, size - pos, 0, version);
      }
      long framePos = pos;
      try {
        RecordCodec.decode(payload, 0, length, sink);
      } catch (RecordCodec.DecodeException e) {
        throw corrupt(
            file, framePos + JournalFormat.FRAME_HEADER_BYTES + e.at, e.getMessage(), e.getCause());
      }
      pos += JournalFormat.FRAME_HEADER_BYTES + length;
    }
    return new End(pos, 0, 0, version);
  }

  /** Whether every byte from {@code from} to {@code size} is zero. */
  private static boolean zerosToEnd(FileChannel ch, long from, long size) throws IOException {
    ByteBuffer buf = ByteBuffer.allocate((int) Math.min(ZERO_SCAN_CHUNK, Math.max(0, size - from)));
    for (long p = from; p < size; ) {
      buf.clear().limit((int) Math.min(buf.capacity(), size - p));
      readFully(ch, buf, p);
      for (int i = 0; i < buf.limit(); i++) {
        if (buf.get(i) != 0) {
          return false;
        }
      }
      p += buf.limit();
    }
    return true;
  }

  /** The offset of the first whole, valid frame at or after {@code from}, or -1. */
  private static long nextValidFrame(FileChannel ch, long from, long size) throws IOException {
    if (size - from > MAX_TAIL_SCAN) {
      // Too large to scan in memory: do not guess that it is only a torn tail.
      return from;
    }
    byte[] rest = new byte[(int) (size - from)];
    readFully(ch, ByteBuffer.wrap(rest), from);
    for (int p = 0; p + JournalFormat.FRAME_HEADER_BYTES < rest.length; p++) {
      if (JournalFormat.isFrameAt(rest, p, rest.length)) {
        return from + p;
      }
    }
    return -1;
  }

  static void readFully(FileChannel ch, ByteBuffer b, long position) throws IOException {
    long p = position;
    while (b.hasRemaining()) {
      int n = ch.read(b, p);
      if (n < 0) {
        throw new EOFException("unexpected end of file at byte " + p);
      }
      p += n;
    }
  }

  static StoreException corrupt(Path file, long offset, String problem) {
    return corrupt(file, offset, problem, null);
  }

  static StoreException corrupt(Path file, long offset, String problem, Throwable cause) {
    return new StoreException(
        StoreException.Code.CORRUPT,
        "journal file " + file + " is corrupt at byte " + offset + ": " + problem,
        cause);
  }
}
