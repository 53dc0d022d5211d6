package dev.tally.core.audit;

import dev.tally.core.store.journal.RiderSink;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Rewrites, at start, the audit entries a power loss may have taken from the audit files. With a
 * journal store, entries are written to the audit files without an fsync and ride in the execution
 * journal's frames instead ({@link AuditCommitObserver}); the journal hands them back while it
 * recovers, and this sink compares each with the file at its offset and writes what is missing or
 * different (after a clean stop or {@code kill -9}, nothing: the file kept everything). Open the
 * store with it, call {@link #finish}, then open the journals ({@link AuditJournals#open}, which
 * checks the chain from the last checkpoint and signs the tail):
 *
 * <pre>{@code
 * AuditRepair repair = AuditRepair.of(auditDir);
 * JournalExecutionStore store = JournalExecutionStore.open(options, repair);
 * repair.finish();
 * AuditJournals journals = AuditJournals.open(auditDir, auditOptions);
 * store.observe(AuditCommitObserver.of(journals));
 * }</pre>
 *
 * <p>Riders are tagged with the journal's file name and the key id of the directory's signing key.
 * Riders of another key (the audit directory was moved aside and begun anew) are skipped, so they
 * never write into journals they do not belong to. A file that ends before a rider's offset has
 * lost entries no rider holds (they were forced before the journal let go of them, so only
 * tampering or a restored backup explains it): the open fails with {@link
 * AuditException.Code#CORRUPT} rather than leave a gap in the chain.
 */
public final class AuditRepair implements RiderSink {
  /**
   * What {@link #finish} did: {@code riders} groups of entries ({@code bytes}) checked, of which
   * {@code restored} bytes were missing or different and written again; {@code skipped} riders of
   * another key.
   */
  public record Result(long riders, long bytes, long restored, long skipped) {
    /** One line for the start-up log, or null when nothing was restored or skipped. */
    public String describe(Path dir) {
      if (restored == 0 && skipped == 0) {
        return null;
      }
      StringBuilder b = new StringBuilder("tally: audit journals in ").append(dir).append(": ");
      if (restored != 0) {
        b.append(restored)
            .append(" bytes of audit entries a crash took from the files restored from the")
            .append(" store's journal");
      }
      if (skipped != 0) {
        b.append(restored != 0 ? "; " : "")
            .append(skipped)
            .append(" group(s) of entries of an earlier audit key skipped (directory begun anew)");
      }
      return b.toString();
    }
  }

  private static final class Target {
    final Path file;
    final FileChannel ch;
    long size;
    boolean written;

    Target(Path file, FileChannel ch, long size) {
      this.file = file;
      this.ch = ch;
      this.size = size;
    }
  }

  private final Path dir;
  private final String keyId;
  private final Map<String, Target> targets = new LinkedHashMap<>();
  private long bytes;
  private long restored;
  private byte[] scratch = new byte[8192];
  private long riders;
  private long skipped;
  private boolean finished;

  private AuditRepair(Path dir, String keyId) {
    this.dir = dir;
    this.keyId = keyId;
  }

  /**
   * A repair of the journals in {@code dir}. Without a public key there (a directory not begun yet)
   * every rider is skipped.
   */
  public static AuditRepair of(Path dir) {
    Path publicKey = AuditFiles.publicKey(dir);
    String keyId = Files.exists(publicKey) ? AuditPublicKey.read(publicKey).keyId() : null;
    return new AuditRepair(dir, keyId);
  }

  /** The tag of the riders of journal {@code fileName} signed with {@code key}. */
  static byte[] tag(String fileName, AuditPublicKey key) {
    return (fileName + " " + key.keyId()).getBytes(StandardCharsets.US_ASCII);
  }

  @Override
  public void accept(byte[] tag, long offset, byte[] data, int from, int length) {
    if (finished) {
      throw new IllegalStateException("the repair is finished");
    }
    String text = new String(tag, StandardCharsets.US_ASCII);
    int space = text.indexOf(' ');
    String name = space < 0 ? text : text.substring(0, space);
    String key = space < 0 ? "" : text.substring(space + 1);
    if (!key.equals(keyId)
        || !(name.equals(AuditFiles.ACTIVITY) || name.equals(AuditFiles.SESSIONS))) {
      skipped++;
      return;
    }
    Target t = target(name);
    if (offset > t.size) {
      throw new AuditException(
          AuditException.Code.CORRUPT,
          t.file
              + ": ends at byte "
              + t.size
              + ", but the store's journal holds its next entries from byte "
              + offset
              + " on: the entries in between are lost and no copy of them is left. Check it with"
              + " 'tally audit verify'; to go on, move the audit directory aside (new journals"
              + " with a new key begin).");
    }
    try {
      if (!holds(t, offset, data, from, length)) {
        ByteBuffer buf = ByteBuffer.wrap(data, from, length);
        long at = offset;
        while (buf.hasRemaining()) {
          at += t.ch.write(buf, at);
        }
        t.size = Math.max(t.size, at);
        t.written = true;
        restored += length;
      }
    } catch (IOException e) {
      throw new AuditException(
          AuditException.Code.IO,
          t.file + ": cannot rewrite entries at byte " + offset + ": " + e,
          e);
    }
    bytes += length;
    riders++;
  }

  /** Whether the file already holds exactly these bytes at {@code offset}. */
  private boolean holds(Target t, long offset, byte[] data, int from, int length)
      throws IOException {
    if (offset + length > t.size) {
      return false;
    }
    if (scratch.length < length) {
      scratch = new byte[Math.max(length, 2 * scratch.length)];
    }
    ByteBuffer buf = ByteBuffer.wrap(scratch, 0, length);
    long at = offset;
    while (buf.hasRemaining()) {
      int n = t.ch.read(buf, at);
      if (n < 0) {
        return false;
      }
      at += n;
    }
    return Arrays.equals(scratch, 0, length, data, from, from + length);
  }

  private Target target(String name) {
    Target t = targets.get(name);
    if (t != null) {
      return t;
    }
    Path file = dir.resolve(name);
    try {
      FileChannel ch = Journal.openChannel(file);
      t = new Target(file, ch, ch.size());
    } catch (IOException e) {
      throw new AuditException(AuditException.Code.IO, file + ": cannot open: " + e, e);
    }
    targets.put(name, t);
    return t;
  }

  /** Forces and closes what was rewritten; call once the store is open, before the journals. */
  public Result finish() {
    if (finished) {
      throw new IllegalStateException("the repair is finished");
    }
    finished = true;
    AuditException error = null;
    for (Target t : targets.values()) {
      try {
        if (t.written) {
          t.ch.force(false);
        }
      } catch (IOException e) {
        if (error == null) {
          error =
              new AuditException(
                  AuditException.Code.IO, t.file + ": cannot force rewritten entries: " + e, e);
        }
      } finally {
        try {
          t.ch.close();
        } catch (IOException e) {
          // Forced or failed above; nothing else to undo.
        }
      }
    }
    if (error != null) {
      throw error;
    }
    return new Result(riders, bytes, restored, skipped);
  }

  /** Closes whatever is open without forcing (the store's open failed). */
  public void abandon() {
    finished = true;
    for (Target t : targets.values()) {
      try {
        t.ch.close();
      } catch (IOException e) {
        // Nothing to undo.
      }
    }
  }
}
