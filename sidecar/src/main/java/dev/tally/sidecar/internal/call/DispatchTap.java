package dev.tally.sidecar.internal.call;

import dev.tally.core.call.Delivery;
import dev.tally.core.call.DispatchRecorder;
import dev.tally.core.mcp.SseEvent;
import dev.tally.core.mcp.TallyError;
import dev.tally.core.mcp.ToolResults;
import dev.tally.sidecar.internal.context.ProxyContext;
import dev.tally.sidecar.internal.relay.MessageTap;
import dev.tally.sidecar.internal.stream.StreamBuffer;
import io.vertx.core.Context;
import io.vertx.core.Future;
import java.util.concurrent.CompletionStage;

/**
 * A dispatched call's answer on its way back, fed to core's {@link DispatchRecorder}, which decides
 * what each observation records; this tap only adapts the relay's events and owns the {@code
 * upstream.timeout} timer. A message that answers the call is held until its outcome is durable;
 * when the call settles without an answer while an SSE stream is open, the client learns of it as
 * an error event for its request.
 */
final class DispatchTap implements MessageTap {
  private final ProxyContext ctx;
  private final DispatchRecorder recorder;
  private final Context context;
  private volatile StreamBuffer stream;
  private long timer = -1;

  DispatchTap(ProxyContext ctx, DispatchRecorder recorder, Context context) {
    this.ctx = ctx;
    this.recorder = recorder;
    this.context = context;
  }

  DispatchRecorder recorder() {
    return recorder;
  }

  /** The SSE stream the answer travels on, once there is one. */
  void stream(StreamBuffer s) {
    this.stream = s;
  }

  /** Starts the {@code upstream.timeout} timer; {@code onTimeout} gets what the client is told. */
  void arm(java.util.function.Consumer<TallyError> onTimeout) {
    timer =
        context
            .owner()
            .setTimer(
                ctx.upstreamTimeoutMs(),
                t -> {
                  TallyError e = recorder.timedOut();
                  if (e != null) {
                    tell(e);
                    onTimeout.accept(e);
                  }
                });
  }

  void disarm() {
    if (timer >= 0) {
      context.owner().cancelTimer(timer);
      timer = -1;
    }
  }

  @Override
  public boolean settled() {
    return recorder.settled();
  }

  @Override
  public void onHead(int status, boolean sse) {
    recorder.head(status);
    if (status >= 200 && status < 300) {
      ctx.toolCallsAnswerSse(sse);
    }
  }

  @Override
  public Future<Delivery> onMessage(byte[] message) {
    CompletionStage<Delivery> stored = recorder.message(message);
    if (stored == null) {
      return null;
    }
    disarm();
    return Future.fromCompletionStage(stored, context);
  }

  @Override
  public void onEnd() {
    disarm();
    tell(recorder.ended());
  }

  @Override
  public void onFailure(String reason) {
    disarm();
    tell(recorder.broke(reason));
  }

  /** On an SSE stream the client already has a 200: it learns of the failure as an error event. */
  private void tell(TallyError error) {
    StreamBuffer s = stream;
    if (error != null && s != null) {
      s.append(SseEvent.message(ToolResults.error(recorder.requestId(), error)), Delivery.NONE);
    }
  }
}
