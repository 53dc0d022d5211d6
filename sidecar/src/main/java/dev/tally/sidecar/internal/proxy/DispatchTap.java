package dev.tally.sidecar.internal.proxy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.gate.InFlight;
import dev.tally.core.gate.TallyError;
import dev.tally.core.mcp.RpcOutcome;
import dev.tally.core.mcp.RpcResponseWatcher;
import dev.tally.core.mcp.ToolResults;
import dev.tally.sidecar.internal.sse.SseEvent;
import dev.tally.sidecar.internal.stream.Delivery;
import dev.tally.sidecar.internal.stream.StreamBuffer;
import io.vertx.core.Context;
import io.vertx.core.Future;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Captures the answer to a dispatched {@code tools/call} and reports it through {@link InFlight}
 * before the client sees it (docs/tool-results.md, "How a stored outcome is classified"): a result
 * is {@code completed} (or MRTR {@code inputRequired}), a JSON-RPC error goes to {@code rpcError},
 * a 4xx without an answer is {@code failedBeforeEffect}, and a 5xx, reset, timeout or an answerless
 * end is {@code unknown}. After the client write, {@code delivered} or {@code notDelivered}.
 */
final class DispatchTap implements MessageTap {
  private final Proxy proxy;
  private final InFlight inFlight;
  private final JsonNode requestId;
  private final Context context;
  private final AtomicBoolean settled = new AtomicBoolean();
  private volatile StreamBuffer stream;
  private int status;

  DispatchTap(Proxy proxy, InFlight inFlight, JsonNode requestId, Context context) {
    this.proxy = proxy;
    this.inFlight = inFlight;
    this.requestId = requestId;
    this.context = context;
  }

  /** The SSE stream the answer travels on, once there is one. */
  void stream(StreamBuffer s) {
    this.stream = s;
  }

  @Override
  public boolean settled() {
    return settled.get();
  }

  @Override
  public void onHead(int status, boolean sse) {
    this.status = status;
    if (status >= 200 && status < 300) {
      proxy.toolCallsAnswerSse(sse);
    }
  }

  @Override
  public Future<Delivery> onMessage(byte[] message) {
    if (settled.get()) {
      return null;
    }
    RpcOutcome outcome = RpcResponseWatcher.outcomeOf(message, requestId);
    if (outcome == null || !settled.compareAndSet(false, true)) {
      return null;
    }
    if (status >= 500) {
      return hold(inFlight.unknown("upstream answered HTTP " + status), false);
    }
    if (outcome instanceof RpcOutcome.Result r) {
      if (r.inputRequired()) {
        return hold(inFlight.inputRequired(status), false);
      }
      return hold(inFlight.completed(status, r.result(), r.isError()), true);
    }
    return hold(inFlight.rpcError(status, ((RpcOutcome.Error) outcome).error()), true);
  }

  @Override
  public void onEnd() {
    if (!settled.compareAndSet(false, true)) {
      return;
    }
    if (status >= 400 && status < 500) {
      inFlight.failedBeforeEffect(status, "upstream answered HTTP " + status + " without a result");
      return;
    }
    inFlight.unknown("upstream response ended without an answer");
    tellClient(TallyError.Code.UPSTREAM_UNAVAILABLE);
  }

  @Override
  public void onFailure(String reason) {
    if (settled.compareAndSet(false, true)) {
      inFlight.unknown(reason);
      tellClient(TallyError.Code.UPSTREAM_UNAVAILABLE);
    }
  }

  /** No answer within the upstream timeout; returns whether this settled the call. */
  boolean timeout() {
    if (!settled.compareAndSet(false, true)) {
      return false;
    }
    inFlight.unknown("no answer within upstream.timeout");
    tellClient(TallyError.Code.UPSTREAM_TIMEOUT);
    return true;
  }

  /** On an SSE stream the client already has a 200: it learns of the failure as an error event. */
  private void tellClient(TallyError.Code code) {
    StreamBuffer s = stream;
    if (s != null) {
      byte[] body =
          ToolResults.error(
              requestId,
              TallyError.of(
                  code,
                  "the upstream gave no answer after the call was sent; its outcome is unknown."
                      + " A retry with the same arguments reports the recorded outcome."));
      s.append(SseEvent.data(body), Delivery.NONE);
    }
  }

  private Future<Delivery> hold(CompletionStage<Execution> stage, boolean trackDelivery) {
    return Future.fromCompletionStage(stage, context)
        .map(
            e ->
                trackDelivery && e.state() == ExecutionState.COMPLETED ? delivery() : Delivery.NONE)
        // A store failure must not keep the answer from the client; the lease reaper settles it.
        .otherwise(Delivery.NONE);
  }

  private Delivery delivery() {
    AtomicBoolean first = new AtomicBoolean(true);
    return ok -> {
      if (ok) {
        inFlight.delivered();
      } else if (first.compareAndSet(true, false)) {
        inFlight.notDelivered();
      }
    };
  }
}
