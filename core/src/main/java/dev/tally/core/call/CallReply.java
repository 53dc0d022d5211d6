package dev.tally.core.call;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.gate.InFlight;
import dev.tally.core.mcp.TallyError;
import dev.tally.core.mcp.ToolResults;

/**
 * What an adapter does with one {@code tools/call}, as core decided it ({@link CallIntake}): four
 * cases, each a value. Every rule (which case, the bytes of every answer Tally writes, what an
 * upstream answer records) is in core; the adapter only moves bytes.
 */
public sealed interface CallReply {

  /**
   * Settles a reply the adapter will not carry out (it stopped waiting for it, e.g. past its own
   * bound): a dispatch that was never sent is recorded as failed before any effect, so its claim
   * does not hold the call's key as if it ran. Safe to call for any reply and more than once.
   */
  static void abandon(CallReply r) {
    if (r instanceof Dispatch d) {
      d.recorder().unreachable();
    }
  }

  /** Send the client's request upstream as it is; nothing is recorded (a read-only tool). */
  record Forward() implements CallReply {}

  /**
   * Send {@code body} upstream with {@code Idempotency-Key: <execution id>} ({@code dispatched} is
   * durable already) and feed what comes back to {@code recorder}.
   *
   * @param body the client's request bytes with {@code params._meta["dev.tally/executionId"]}
   */
  record Dispatch(InFlight inFlight, byte[] body, DispatchRecorder recorder) implements CallReply {
    /**
     * The W3C {@code traceparent} to send upstream: the span of this dispatch is its parent, so the
     * upstream server's spans hang under Tally's.
     */
    public String traceparent() {
      return recorder.traceparent();
    }
  }

  /**
   * Tally answers with a complete JSON-RPC response (HTTP 200, framed as JSON or as one SSE event)
   * and tells {@code delivery} whether it reached the client.
   */
  record Answer(byte[] message, Delivery delivery) implements CallReply {}

  /** Tally refuses: HTTP {@code error.code().httpStatus()} and {@code message} as JSON. */
  record Refusal(TallyError error, byte[] message) implements CallReply {
    /** The refusal of {@code error} for the request {@code id} (may be null). */
    public static Refusal of(JsonNode id, TallyError error) {
      return new Refusal(error, ToolResults.error(id, error));
    }

    public int httpStatus() {
      return error.code().httpStatus();
    }
  }
}
