package dev.tally.core.store.journal;

import dev.tally.core.execution.Execution;

/**
 * Hears of every change the {@link JournalExecutionStore} makes, so that something kept beside the
 * journal (the audit trail) becomes durable no later than the change is reported, without an fsync
 * of its own: {@link #applied} when a change is made in memory (before its record is queued), and
 * {@link #collect} once per group commit, on the writer thread, just before the group's frame is
 * written. What {@code collect} hands over rides in that frame ({@link RiderSink}) and is durable
 * with it; the observer writes the same bytes to its own files without forcing them. {@link #force}
 * then forces those files before a compaction makes the journal files holding the riders
 * unreachable; at start, the riders the journal still holds are handed back to rewrite what a power
 * loss took from the unforced files. Set with {@link JournalExecutionStore#observe}.
 *
 * <p>{@link #applied} is called on the mutating thread while a per-execution lock is held (calls
 * for one execution come in the order of its versions), {@link #collect} once per group commit:
 * both are hot paths. If {@link #applied} throws, the change still stands and is written, but its
 * stage fails with that exception; if {@link #collect} throws, every stage of the group fails with
 * it (the records are durable: like a failed fsync, a change reported as failed can remain).
 */
public interface CommitObserver {
  /** Observes nothing. */
  CommitObserver NONE =
      new CommitObserver() {
        @Override
        public void applied(Execution before, Execution after) {}

        @Override
        public void collect(RiderSink out) {}

        @Override
        public void force() {}
      };

  /**
   * An execution moved from {@code before} ({@code null}: it was created, or the previous version
   * is unknown) to {@code after}; purges are not reported.
   */
  void applied(Execution before, Execution after);

  /**
   * Hands {@code out} everything {@link #applied} reported so far and not yet collected, as riders
   * whose bytes this call has already written (not forced) to their own files. Writer thread; the
   * group's stages complete only after the frame holding the riders is forced.
   */
  void collect(RiderSink out);

  /**
   * Forces the files that {@link #collect} wrote to (called on the compactor thread before the
   * journal files that hold their riders are replaced); throws if it cannot, and the compaction
   * then keeps those files.
   */
  void force();
}
