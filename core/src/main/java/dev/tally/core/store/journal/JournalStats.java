package dev.tally.core.store.journal;

/**
 * Counters of a {@link JournalExecutionStore} since it was opened, for metrics and benchmarks.
 *
 * @param fsyncs group commits: writes forced to disk
 * @param recordsWritten records made durable (each transition, claim, touch or purge is one)
 * @param bytesWritten bytes appended to segments, frame headers included
 * @param riderBytes of them, the bytes of riders: audit entries sharing the journal's fsync
 * @param compactions compactions completed
 * @param executions executions held in memory (every one until its retention ends and it is purged:
 *     the store's heap grows with them)
 * @param executionBytes their estimated heap (0 when the store has no bound)
 * @param maxBytes the bound on that estimate beyond which new calls are refused (0: none)
 */
public record JournalStats(
    long fsyncs,
    long recordsWritten,
    long bytesWritten,
    long riderBytes,
    long compactions,
    long executions,
    long executionBytes,
    long maxBytes) {

  /** Records per fsync: how well group commit shares the cost of an fsync (0 before any). */
  public double recordsPerFsync() {
    return fsyncs == 0 ? 0 : (double) recordsWritten / fsyncs;
  }
}
