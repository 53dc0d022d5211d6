package dev.tally.core.store.internal;

import dev.tally.core.execution.Execution;
import dev.tally.core.execution.Lease;

/** Copies of executions and transitions with one part replaced, for the table. */
final class Records {
  private Records() {}

  /** {@code e} with a new lease and awaiting-input flag, at version + 1, in the same state. */
  static Execution touched(Execution e, Lease lease, boolean awaitingInput) {
    return new Execution(
        e.id(),
        e.version() + 1,
        e.matchKey(),
        e.matchKind(),
        e.actor(),
        e.tool(),
        e.toolClass(),
        e.fingerprint(),
        e.intentScope(),
        e.state(),
        e.timeline(),
        e.holdUntil(),
        e.retainUntil(),
        lease,
        e.targetStatus(),
        e.error(),
        e.result(),
        awaitingInput,
        e.summary());
  }
}
