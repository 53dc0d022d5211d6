package dev.tally.sidecar.internal.proxy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.gate.Decision;
import dev.tally.core.gate.InFlight;
import dev.tally.core.gate.TallyError;
import dev.tally.core.mcp.ToolResults;
import dev.tally.sidecar.internal.stream.Delivery;
import io.vertx.core.Context;
import io.vertx.core.Future;

/**
 * Carries out the gate's decision on one {@code tools/call}, the same way for a single call
 * (answered on its HTTP response, {@link ToolCallFlow}) and for a call inside a batch (answered
 * into the merged array, {@link BatchCall}): a replay, an attach, a response and a refusal are
 * decided here; only passing through, dispatching and writing an answer belong to the caller.
 */
final class DecisionRenderer {
  /** Where a decision goes. Called on the call's context. */
  interface Target {
    void passThrough();

    void dispatch(InFlight inFlight);

    /** A complete answer from Tally; {@code delivery} hears whether it reached the client. */
    void answer(byte[] message, Delivery delivery);

    void refuse(TallyError error);
  }

  private DecisionRenderer() {}

  static void render(Decision d, JsonNode id, Proxy proxy, Context context, Target target) {
    if (d instanceof Decision.PassThrough) {
      target.passThrough();
    } else if (d instanceof Decision.Dispatch dispatch) {
      target.dispatch(dispatch.inFlight());
    } else if (d instanceof Decision.Replay r) {
      target.answer(
          ToolResults.replay(id, r.execution(), r.result()),
          ok -> {
            if (ok) {
              proxy.admission.replayDelivered(r.execution());
            }
          });
    } else if (d instanceof Decision.Attach a) {
      Future.fromCompletionStage(a.settled(), context)
          .onComplete(
              ar -> {
                if (ar.succeeded()) {
                  render(ar.result(), id, proxy, context, target);
                } else {
                  target.refuse(
                      TallyError.of(
                          TallyError.Code.STORE_UNAVAILABLE,
                          "the running execution could not be awaited; retry later"));
                }
              });
    } else if (d instanceof Decision.Respond r) {
      target.answer(ToolResults.respond(id, r.code(), r.execution()), Delivery.NONE);
    } else if (d instanceof Decision.Refuse r) {
      target.refuse(r.error());
    }
  }
}
