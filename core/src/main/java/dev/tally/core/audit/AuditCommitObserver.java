package dev.tally.core.audit;

import dev.tally.core.execution.Execution;
import dev.tally.core.store.journal.CommitObserver;
import dev.tally.core.store.journal.JournalExecutionStore;
import dev.tally.core.store.journal.RiderSink;
import java.util.Objects;

/**
 * Audits the changes of a {@link JournalExecutionStore} so that the activity entry of a transition
 * is durable no later than the transition is reported, without an fsync of its own: the entry is
 * buffered when the change is applied (before its record is queued); for each group commit the
 * buffered entries are written to the audit files, not forced, and ride in the group's frame, so
 * the journal's one fsync covers them. The audit files are forced before a compaction drops
 * segments holding riders, on close, and by {@link AuditJournals#flush}; after a power loss {@link
 * AuditRepair} rewrites what they lost from the riders (open the store with it). Install with
 * {@link JournalExecutionStore#observe}; the store then needs no {@link AuditedExecutionStore}
 * wrapper (which would record every transition twice).
 *
 * <p>Buffered before the journal's fsync, an entry can outlive a change whose write then failed
 * (the store reports the failure and refuses further writes); like the journal itself after a
 * failed fsync, the audit may hold a change reported as failed, never lack one reported done.
 */
public final class AuditCommitObserver implements CommitObserver {
  private final AuditJournals journals;

  private AuditCommitObserver(AuditJournals journals) {
    this.journals = journals;
  }

  /** An observer that reports each change to {@code journals} and collects it with each group. */
  public static CommitObserver of(AuditJournals journals) {
    return new AuditCommitObserver(Objects.requireNonNull(journals, "journals"));
  }

  @Override
  public void applied(Execution before, Execution after) {
    journals.transition(before, after);
  }

  @Override
  public void collect(RiderSink out) {
    journals.collect(out);
  }

  @Override
  public void force() {
    journals.force();
  }
}
