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
 * <p>Implementation note (ARCHITECTURE.md §6, "Delivery is evidence, not a socket write"): a
 * completed write only proves that the kernel took the bytes (a client frozen or killed after it, a
 * half-open connection, a proxy or an SDK timeout in between all lose the answer), and no MCP
 * transport gives Tally an acknowledgement it could observe. So a delivery never ends a key-less
 * execution's hold early: an identical call stays answered from the record (marked as a replay,
 * with the execution id and completion time and how to repeat on purpose) until the tool's {@link
 * ToolContract#attachWindow() attach window} has passed since the call was accepted, and for at
 * least the tool's {@link ToolContract#replayWindow() replay window} after the delivery (the copies
 * of a retry storm that arrive late). Every other execution keeps the hold it was created with,
 * until its retention ends: a result not delivered, an unknown outcome, a keyed execution.
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
      Instant accepted = e.at(ExecutionState.ACCEPTED);
      Instant windowEnd = (accepted == null ? now : accepted).plus(c.attachWindow());
      Instant storm = now.plus(c.replayWindow());
      return t.withHoldUntil(windowEnd.isAfter(storm) ? windowEnd : storm);
    }
    return t;
  }
}
