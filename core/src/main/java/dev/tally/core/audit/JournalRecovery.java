package dev.tally.core.audit;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.InstantSource;

/**
 * Re-opens an existing journal for appending: finds its last checkpoint by reading backwards,
 * checks the chain from there to the end (signature included), and moves a torn last line aside to
 * {@code <file>.torn-<offset>-<millis>} before truncating it. A journal that does not check out is
 * never extended: the writer refuses to start ({@link AuditException.Code#CORRUPT}).
 */
final class JournalRecovery {
  private static final int CHUNK = 2 * EntryCodec.MAX_LINE_BYTES;
  private static final byte[] CHECKPOINT_MARK =
      ("\"" + EntryCodec.TYPE + "\":\"" + EntryCodec.CHECKPOINT + "\"")
          .getBytes(StandardCharsets.US_ASCII);

  /** Where the chain stands after recovery. */
  record State(long lastSeq, String lastHash, boolean signed) {}

  private JournalRecovery() {}

  static State recover(
      FileChannel ch,
      Path file,
      String journal,
      EntryCodec codec,
      AuditPublicKey key,
      InstantSource clock)
      throws IOException {
    long size = ch.size();
    if (size == 0) {
      return new State(0, Hashes.ZERO_HASH, true);
    }
    long anchor = lastCheckpointOffset(ch, size);
    ChainChecker checker = new ChainChecker(journal, codec, key);
    LineReader reader = new LineReader(Channels.newInputStream(ch.position(anchor)), anchor);
    LineReader.Line line = reader.next();
    if (anchor > 0) {
      JsonNode first = parse(line);
      if (first == null) {
        throw corrupt(file, 0, anchor, "the last checkpoint cannot be read");
      }
      checker.startAt(first.get(EntryCodec.SEQ).longValue(), first.get(EntryCodec.PREV).asText());
    }
    for (; line != null; line = reader.next()) {
      if (line.tooLong()) {
        throw corrupt(file, checker.lastSeq() + 1, line.offset(), "line too long");
      }
      if (!line.terminated()) {
        if (checker.classifyTail(line.bytes()) == ChainChecker.Tail.BAD) {
          ChainChecker.Problem p = checker.tailProblem();
          throw corrupt(file, p.seq(), line.offset(), p.what());
        }
        moveAside(ch, file, line, clock);
        break;
      }
      ChainChecker.Problem p = checker.check(line.bytes());
      if (p != null) {
        throw corrupt(file, p.seq(), line.offset(), p.what());
      }
    }
    return new State(
        checker.lastSeq(),
        checker.lastHash(),
        checker.lastWasCheckpoint() || checker.lastSeq() == 0);
  }

  /** The offset of the last line that looks like a checkpoint, or 0. */
  private static long lastCheckpointOffset(FileChannel ch, long size) throws IOException {
    long end = size;
    while (end > 0) {
      long start = Math.max(0, end - CHUNK);
      byte[] buf = read(ch, start, (int) (end - start));
      int lineEnd = -1;
      for (int i = buf.length - 1; i >= -1; i--) {
        if (i >= 0 && buf[i] != '\n') {
          continue;
        }
        if (i < 0 && start > 0) {
          break;
        }
        if (lineEnd >= 0 && contains(buf, i + 1, lineEnd, CHECKPOINT_MARK)) {
          return start + i + 1;
        }
        lineEnd = i;
      }
      int firstNewline = indexOf(buf, (byte) '\n');
      if (start == 0) {
        return 0;
      }
      if (firstNewline < 0) {
        // A line longer than any entry may be: let the forward check report it.
        return 0;
      }
      end = start + firstNewline + 1;
    }
    return 0;
  }

  private static byte[] read(FileChannel ch, long start, int len) throws IOException {
    ByteBuffer buf = ByteBuffer.allocate(len);
    while (buf.hasRemaining()) {
      if (ch.read(buf, start + buf.position()) < 0) {
        break;
      }
    }
    return buf.array();
  }

  private static boolean contains(byte[] buf, int from, int to, byte[] needle) {
    outer:
    for (int i = from; i <= to - needle.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (buf[i + j] != needle[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }

  private static int indexOf(byte[] buf, byte b) {
    for (int i = 0; i < buf.length; i++) {
      if (buf[i] == b) {
        return i;
      }
    }
    return -1;
  }

  private static JsonNode parse(LineReader.Line line) {
    if (line == null || !line.terminated() || line.tooLong()) {
      return null;
    }
    try {
      JsonNode n = EntryCodec.STRICT.readTree(line.bytes());
      JsonNode seq = n.get(EntryCodec.SEQ);
      JsonNode prev = n.get(EntryCodec.PREV);
      return seq != null && seq.canConvertToLong() && prev != null && prev.isTextual() ? n : null;
    } catch (IOException e) {
      return null;
    }
  }

  private static void moveAside(
      FileChannel ch, Path file, LineReader.Line torn, InstantSource clock) throws IOException {
    Path aside =
        file.resolveSibling(file.getFileName() + ".torn-" + torn.offset() + "-" + clock.millis());
    FileOps.createAtomically(aside, torn.bytes(), FileOps.OWNER_ONLY);
    ch.truncate(torn.offset());
    ch.force(true);
  }

  private static AuditException corrupt(Path file, long seq, long offset, String what) {
    return new AuditException(
        AuditException.Code.CORRUPT,
        file
            + ": entry seq "
            + seq
            + " at byte "
            + offset
            + ": "
            + what
            + ". The journal is not extended; check it with 'tally audit verify' and move it"
            + " aside to start a new one.");
  }
}
