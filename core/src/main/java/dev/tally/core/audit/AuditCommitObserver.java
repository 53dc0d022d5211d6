package dev.tally.core.audit;

import dev.tally.core.execution.Execution;
import dev.tally.core.store.journal.CommitObserver;
import dev.tally.core.store.journal.JournalExecutionStore;
import dev.tally.core.store.journal.RiderSink;
import java.util.ArrayList;
import java.util.Objects;

/**
 * Audits the changes of a {@link JournalExecutionStore} so that the activity entry of a transition
 * is durable no later than the transition is reported, without an fsync of its own. A change is
 * only noted when it is applied (before its record is queued; the caller holds the execution's
 * lock, so the notes of one execution are in version order). For each group commit, on the
 * journal's writer thread, the noted changes become entries (in the order noted), the entries are
 * written to the audit files, not forced, and ride in the group's frame, so the journal's one fsync
 * covers them. The audit files are forced before a compaction drops segments holding riders, on
 * close, and by {@link AuditJournals#flush}; after a power loss {@link AuditRepair} restores what
 * they lost from the riders (open the store with it). Install with {@link
 * JournalExecutionStore#observe}; the store then needs no {@link AuditedExecutionStore} wrapper
 * (which would record every transition twice).
 *
 * <p>Building the entries for a whole group on the writer thread, instead of one by one on the
 * threads that apply changes (the event loops), took 6–12 % off the journal sidecar's CPU per call
 * under load (bench/README.md, session 7): one thread appends to the hash chain, with no contention
 * on its lock.
 *
 * <p>Noted before the journal's fsync, an entry can outlive a change whose write then failed (the
 * store reports the failure and refuses further writes); like the journal itself after a failed
 * fsync, the audit may hold a change reported as failed, never lack one reported done. If an entry
 * cannot be written (the audit files failed), {@link #collect} throws and every stage of the group
 * fails with it.
 */
public final class AuditCommitObserver implements CommitObserver {
  private final AuditJournals journals;
  private final Object lock = new Object();
  // Guarded by lock: the changes noted since the last collect, as before/after pairs.
  private ArrayList<Execution> noted = new ArrayList<>();
  // Writer thread only: the list collected last, emptied, to become the next noted one.
  private ArrayList<Execution> spare = new ArrayList<>();

  private AuditCommitObserver(AuditJournals journals) {
    this.journals = journals;
  }

  /** An observer that audits each change in {@code journals} with the group that writes it. */
  public static CommitObserver of(AuditJournals journals) {
    return new AuditCommitObserver(Objects.requireNonNull(journals, "journals"));
  }

  @Override
  public void applied(Execution before, Execution after) {
    Objects.requireNonNull(after, "after");
    synchronized (lock) {
      noted.add(before);
      noted.add(after);
    }
  }

  @Override
  public void collect(RiderSink out) {
    ArrayList<Execution> batch;
    synchronized (lock) {
      batch = noted;
      noted = spare;
    }
    try {
      for (int i = 0; i < batch.size(); i += 2) {
        journals.transition(batch.get(i), batch.get(i + 1));
      }
    } finally {
      batch.clear();
      spare = batch;
    }
    journals.collect(out);
  }

  @Override
  public void force() {
    journals.force();
  }
}
