package dev.tally.core.store.journal;

import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import java.util.HashMap;
import java.util.Map;

/**
 * An estimate of how many bytes the live records would take in a compacted journal: per id, the
 * size of its latest record without result bytes plus the size of its retained result. Owned by the
 * writer thread; it decides when compaction pays off.
 */
final class LiveBytes {
  private final Map<ExecutionId, long[]> sizes = new HashMap<>();
  private long total;

  /** Accounts for a record of {@code docBytes} plus {@code result} (null: none in this record). */
  void put(Execution e, int docBytes, byte[] result) {
    long[] s = sizes.computeIfAbsent(e.id(), k -> new long[2]);
    total -= s[0] + s[1];
    s[0] = docBytes + JournalFormat.FRAME_HEADER_BYTES;
    if (result != null) {
      s[1] = result.length;
    } else if (e.result() == null || !e.result().retained()) {
      s[1] = 0;
    }
    total += s[0] + s[1];
  }

  void remove(ExecutionId id) {
    long[] s = sizes.remove(id);
    if (s != null) {
      total -= s[0] + s[1];
    }
  }

  long total() {
    return total;
  }
}
