package dev.tally.core.config;

import dev.tally.core.store.MemoryStoreOptions;
import dev.tally.core.store.journal.JournalOptions;
import java.nio.file.Path;
import java.time.Duration;

/**
 * How the embedded stores and the audit journals are tuned and placed: the {@code journal}, {@code
 * memory} and {@code audit} sections (config/README.md). Every key has an environment variable
 * ({@code TALLY_JOURNAL_COMPACT_MIN_BYTES}, …) and a flag, like every other key.
 *
 * @param journalCompactMinBytes {@code journal.compactMinBytes}: compaction starts only above this
 *     many bytes of log
 * @param journalCompactRatio {@code journal.compactRatio}: ... and only when the log is this many
 *     times its live records
 * @param journalMaxGroupDelay {@code journal.maxGroupDelay}: how long the writer waits to fill a
 *     group commit (0 to 1s)
 * @param journalPreallocateBytes {@code journal.preallocateBytes}: zeros kept written ahead of the
 *     records (0 turns it off)
 * @param journalMaxBytes {@code journal.maxBytes}: the estimated heap the journal store's
 *     executions may take before new calls are refused; {@code -1}: half the maximum heap; 0: no
 *     bound
 * @param memoryMaxBytes {@code memory.maxBytes}: the memory store's bound on its estimated heap
 * @param auditDir {@code audit.dir}: where the audit journals of a journal store live; {@code
 *     null}: inside the journal directory ({@code <journal>/audit})
 */
public record StorageConfig(
    long journalCompactMinBytes,
    double journalCompactRatio,
    Duration journalMaxGroupDelay,
    long journalPreallocateBytes,
    long journalMaxBytes,
    long memoryMaxBytes,
    Path auditDir) {

  /** {@code journal.maxBytes} unset: half the JVM's maximum heap. */
  public static final long HALF_THE_HEAP = -1;

  public static final StorageConfig DEFAULT =
      new StorageConfig(
          JournalOptions.DEFAULT_COMPACT_MIN_BYTES,
          JournalOptions.DEFAULT_COMPACT_RATIO,
          JournalOptions.DEFAULT_MAX_GROUP_DELAY,
          JournalOptions.DEFAULT_PREALLOCATE_BYTES,
          HALF_THE_HEAP,
          MemoryStoreOptions.DEFAULT_MAX_WEIGHT_BYTES,
          null);

  /** The journal options for {@code dir} these settings imply. */
  public JournalOptions journalOptions(Path dir) {
    JournalOptions d = JournalOptions.defaults(dir);
    return d.withCompaction(journalCompactMinBytes, journalCompactRatio)
        .withGroup(d.maxGroupRecords(), d.maxGroupBytes(), journalMaxGroupDelay)
        .withPreallocation(journalPreallocateBytes)
        .withMaxBytes(journalMaxBytes == HALF_THE_HEAP ? d.maxBytes() : journalMaxBytes);
  }
}
