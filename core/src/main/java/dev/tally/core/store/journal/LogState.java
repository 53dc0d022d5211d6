package dev.tally.core.store.journal;

import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.store.internal.ExecutionBinary;
import java.util.Collection;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The records a sequence of journal files leaves live, merged in file order: the record with the
 * highest version per id wins, result bytes carry over from an earlier record while the winning
 * record says they are retained, and a purge removes the id. Recovery builds it from the files; the
 * writer then keeps it current with every record it made durable, and compaction writes a snapshot
 * from it instead of re-reading the files.
 *
 * <p>One thread changes it at a time (recovery, then the writer thread); {@link #entries()} may be
 * read concurrently and then sees, per id, the entry it had when iteration began or a later one
 * (weakly consistent iteration of a {@link ConcurrentHashMap}).
 */
final class LogState implements RecordCodec.Sink {
  /**
   * A live record as its {@link ExecutionBinary} document (shared with the store's table, which
   * keeps a finished record packed in the same array), its result bytes (or null) and the size of
   * its record without the bytes.
   */
  record Entry(long version, byte[] doc, byte[] result, int docBytes) {
    long liveBytes() {
      return docBytes + (result == null ? 0 : result.length);
    }

    /** The record, decoded from its document. */
    Execution execution() {
      return ExecutionBinary.unpack(doc);
    }
  }

  private final ConcurrentHashMap<ExecutionId, Entry> entries = new ConcurrentHashMap<>();
  private volatile long liveBytes;

  @Override
  public void accept(JournalEntry entry, int encodedBytes) {
    if (entry instanceof JournalEntry.Put put) {
      Execution next = put.execution();
      Entry old = entries.get(next.id());
      if (old != null && old.version() > next.version()) {
        return;
      }
      byte[] bytes = put.result();
      int docBytes = encodedBytes - (bytes == null ? 0 : bytes.length);
      if (bytes == null && old != null && retained(next)) {
        bytes = old.result();
      }
      byte[] doc = put.doc() != null ? put.doc() : ExecutionBinary.pack(next);
      Entry now = new Entry(next.version(), doc, retained(next) ? bytes : null, docBytes);
      entries.put(next.id(), now);
      liveBytes += now.liveBytes() - (old == null ? 0 : old.liveBytes());
    } else {
      Entry old = entries.remove(entry.id());
      if (old != null) {
        liveBytes -= old.liveBytes();
      }
    }
  }

  private static boolean retained(Execution e) {
    return e.result() != null && e.result().retained();
  }

  Collection<Entry> entries() {
    return entries.values();
  }

  int size() {
    return entries.size();
  }

  /**
   * An estimate of the bytes the live records take in a snapshot (records plus retained results,
   * without frame headers): compaction pays off once the files are well above it.
   */
  long liveBytes() {
    return liveBytes;
  }
}
