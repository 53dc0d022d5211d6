package dev.tally.core.audit;

import dev.tally.core.execution.Execution;
import dev.tally.core.store.journal.CommitObserver;
import dev.tally.core.store.journal.JournalExecutionStore;
import java.util.Objects;

/**
 * Audits the changes of a {@link JournalExecutionStore} so that the activity entry of a transition
 * is durable no later than the transition is reported: the entry is buffered when the change is
 * applied (before its record is queued) and the audit journals are flushed once per group commit,
 * while the store forces the group, before any stage of the group completes. One audit fsync per
 * group commit, not per call. Install with {@link JournalExecutionStore#observe}; the store then
 * needs no {@link AuditedExecutionStore} wrapper (which would record every transition twice).
 *
 * <p>Buffered before the journal's fsync, an entry can outlive a change whose write then failed
 * (the store reports the failure and refuses further writes); like the journal itself after a
 * failed fsync, the audit may hold a change reported as failed, never lack one reported done.
 */
public final class AuditCommitObserver implements CommitObserver {
  private final AuditSink sink;

  private AuditCommitObserver(AuditSink sink) {
    this.sink = sink;
  }

  /** An observer that reports each change to {@code sink} and flushes it after each group. */
  public static CommitObserver of(AuditSink sink) {
    return new AuditCommitObserver(Objects.requireNonNull(sink, "sink"));
  }

  @Override
  public void applied(Execution before, Execution after) {
    sink.transition(before, after);
  }

  @Override
  public void durable() {
    sink.flush();
  }
}
