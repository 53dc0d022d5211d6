package dev.tally.core.store.journal;

import dev.tally.core.execution.Execution;

/**
 * Hears of every change the {@link JournalExecutionStore} makes, in two steps, so that something
 * kept beside the journal (the audit trail) becomes durable no later than the change is reported:
 * {@link #applied} when a change is made in memory (before its record is queued), {@link #durable}
 * once per group commit, on the journal's observer thread while the writer forces the group's
 * frame; no stage of the group completes before both have returned. Set with {@link
 * JournalExecutionStore#observe}.
 *
 * <p>Both are called on hot paths: {@link #applied} on the mutating thread while a per-execution
 * lock is held (calls for one execution come in the order of its versions), {@link #durable} once
 * per group commit. If {@link #applied} throws, the change still stands and is written, but its
 * stage fails with that exception; if {@link #durable} throws, every stage of the group fails with
 * it (the records are durable: like a failed fsync, a change reported as failed can remain).
 */
public interface CommitObserver {
  /** Observes nothing. */
  CommitObserver NONE =
      new CommitObserver() {
        @Override
        public void applied(Execution before, Execution after) {}

        @Override
        public void durable() {}
      };

  /**
   * An execution moved from {@code before} ({@code null}: it was created, or the previous version
   * is unknown) to {@code after}; purges are not reported.
   */
  void applied(Execution before, Execution after);

  /**
   * Make everything {@link #applied} reported so far durable: the group being forced holds only
   * changes reported before, and none of them is acknowledged before this returns.
   */
  void durable();
}
