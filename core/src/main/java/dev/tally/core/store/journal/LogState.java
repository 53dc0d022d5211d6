package dev.tally.core.store.journal;

import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * The records a sequence of journal files leaves live, merged in file order: the record with the
 * highest version per id wins, result bytes carry over from an earlier record while the winning
 * record says they are retained, and a purge removes the id. Used by recovery and by compaction.
 */
final class LogState implements RecordCodec.Sink {
  /** A live record, its result bytes (or null) and the size of its record without the bytes. */
  record Entry(Execution execution, byte[] result, int docBytes) {}

  private final Map<ExecutionId, Entry> entries = new HashMap<>();

  @Override
  public void accept(JournalEntry entry, int encodedBytes) {
    if (entry instanceof JournalEntry.Put put) {
      Execution next = put.execution();
      Entry old = entries.get(next.id());
      if (old != null && old.execution().version() > next.version()) {
        return;
      }
      byte[] bytes = put.result();
      int docBytes = encodedBytes - (bytes == null ? 0 : bytes.length);
      if (bytes == null && old != null && retained(next)) {
        bytes = old.result();
      }
      entries.put(next.id(), new Entry(next, retained(next) ? bytes : null, docBytes));
    } else {
      entries.remove(entry.id());
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
}
