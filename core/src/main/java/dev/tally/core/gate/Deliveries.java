package dev.tally.core.gate;

import dev.tally.core.contract.ToolContract;
import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.execution.MatchKind;
import dev.tally.core.execution.Transition;
import java.time.Instant;

/**
 * The transitions that record whether a result reached its client.
 *
 * <p>Implementation note: ARCHITECTURE.md §6 step 4 lets a call without an idempotency key match
 * only unfinished executions, so delivery used to release the fingerprint at once. The copies of a
 * retry storm are read one after another, and the first copy's answer can be delivered before the
 * last copy is read; each late copy then became a new execution. Delivery therefore shortens the
 * hold to the contract's {@link ToolContract#replayWindow() replay window} instead: an identical
 * key-less call inside it gets the delivered result replayed (marked as a replay), a later one runs
 * anew. A keyed execution keeps its hold (the key is the intent).
 */
final class Deliveries {
  private Deliveries() {}

  /**
   * The transition of {@code e} to {@code to} (delivered or completed_not_delivered) at {@code
   * now}.
   */
  static Transition transition(Execution e, ExecutionState to, ToolContract c, Instant now) {
    Transition t = Transition.to(e, to, now);
    if (to == ExecutionState.DELIVERED && e.matchKind() == MatchKind.FINGERPRINT) {
      return t.withHoldUntil(now.plus(c.replayWindow()));
    }
    return t;
  }
}
