package dev.tally.core.store.journal;

import dev.tally.core.store.internal.ByteWriter;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

/**
 * The on-disk framing of journal files, version {@value #FORMAT_VERSION}; the full description is
 * in {@code docs/journal-format.md} and {@link JournalExecutionStore}.
 *
 * <pre>
 * file   = header frame*
 * header = "TLYJ" u16 formatVersion u16 kind u64 sequence        (16 bytes, big-endian)
 * frame  = u32 payloadLength u32 crc32c(payloadLength ‖ payload) payload
 * </pre>
 *
 * A frame is what one group commit writes with one write and one fsync, so a crash can tear only
 * the last frame of the newest segment. From version {@value #ZERO_TAIL_VERSION} a segment may end
 * in zero bytes the writer allocated ahead of its frames (so that an fsync does not also have to
 * commit a new file size): a frame header of zeros followed only by zeros up to the end of the file
 * ends the data. From version 4 a frame may also carry riders: bytes of the audit journals that
 * share the group's fsync ({@link RiderSink}).
 */
final class JournalFormat {
  /** The version this release writes. */
  static final int FORMAT_VERSION = 4;

  /** The first version whose segments may end in preallocated zero bytes. */
  static final int ZERO_TAIL_VERSION = 3;

  /** The oldest version this release reads (version 1: JSON documents only). */
  static final int OLDEST_READABLE_VERSION = 1;

  static final int HEADER_BYTES = 16;
  static final int FRAME_HEADER_BYTES = 8;
  static final short KIND_SEGMENT = 1;
  static final short KIND_SNAPSHOT = 2;

  private static final byte[] MAGIC = "TLYJ".getBytes(StandardCharsets.US_ASCII);

  private JournalFormat() {}

  static ByteBuffer header(short kind, long sequence) {
    return header(FORMAT_VERSION, kind, sequence);
  }

  /** A header of another version (tests that write old journals). */
  static ByteBuffer header(int version, short kind, long sequence) {
    ByteBuffer b = ByteBuffer.allocate(HEADER_BYTES);
    b.put(MAGIC).putShort((short) version).putShort(kind).putLong(sequence);
    return b.flip();
  }

  /** The format version in a header that {@link #checkHeader} accepted. */
  static int version(ByteBuffer checkedHeader) {
    return Short.toUnsignedInt(checkedHeader.getShort(4));
  }

  /**
   * Checks a file header; returns null when it is good, else what is wrong with it (for an error
   * that names the file).
   */
  static String checkHeader(ByteBuffer b, short kind, long sequence) {
    byte[] magic = new byte[MAGIC.length];
    b.get(magic);
    if (!java.util.Arrays.equals(magic, MAGIC)) {
      return "not a Tally journal file (bad magic)";
    }
    int version = Short.toUnsignedInt(b.getShort());
    if (version < OLDEST_READABLE_VERSION || version > FORMAT_VERSION) {
      return "journal format version "
          + version
          + " (this release reads "
          + OLDEST_READABLE_VERSION
          + " to "
          + FORMAT_VERSION
          + ")";
    }
    int k = b.getShort();
    if (k != kind) {
      return "file kind " + k + " (expected: " + kind + ")";
    }
    long seq = b.getLong();
    if (seq != sequence) {
      return "sequence " + seq + " in the header does not match the file name (" + sequence + ")";
    }
    return null;
  }

  /** The checksum of a frame: CRC-32C over the four length bytes, then the payload. */
  static int checksum(int length, byte[] payload, int offset) {
    CRC32C crc = new CRC32C();
    crc.update((length >>> 24) & 0xff);
    crc.update((length >>> 16) & 0xff);
    crc.update((length >>> 8) & 0xff);
    crc.update(length & 0xff);
    crc.update(payload, offset, length);
    return (int) crc.getValue();
  }

  /**
   * Whether {@code buf[pos..]} starts a whole, valid frame within {@code limit}; used to tell a
   * torn tail from corruption in the middle.
   */
  static boolean isFrameAt(byte[] buf, int pos, int limit) {
    if (limit - pos < FRAME_HEADER_BYTES + 1) {
      return false;
    }
    int length = readInt(buf, pos);
    if (length <= 0 || length > limit - pos - FRAME_HEADER_BYTES) {
      return false;
    }
    int crc = readInt(buf, pos + 4);
    return checksum(length, buf, pos + FRAME_HEADER_BYTES) == crc;
  }

  /** Whether files of {@code version} may end in zero bytes the writer allocated ahead. */
  static boolean allowsZeroTail(int version) {
    return version >= ZERO_TAIL_VERSION;
  }

  static int readInt(byte[] b, int p) {
    return ByteWriter.readInt(b, p);
  }

  static long readLong(byte[] b, int p) {
    return ((long) readInt(b, p) << 32) | (readInt(b, p + 4) & 0xffffffffL);
  }

  static void writeInt(byte[] b, int p, int v) {
    ByteWriter.writeInt(b, p, v);
  }
}
