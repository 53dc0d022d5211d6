package dev.tally.sidecar.internal.call;

import dev.tally.core.call.CallReply;
import dev.tally.core.call.Delivery;
import dev.tally.core.call.DispatchRecorder;
import dev.tally.core.mcp.SseEvent;
import dev.tally.sidecar.internal.context.CancelTargets;
import dev.tally.sidecar.internal.context.ProxyContext;
import dev.tally.sidecar.internal.relay.MessageTap;
import dev.tally.sidecar.internal.stream.StreamBuffer;
import io.vertx.core.Context;
import io.vertx.core.Future;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * A dispatched call's answer on its way back, fed to core's {@link DispatchRecorder}, which decides
 * what each observation records; this tap only adapts the relay's events and owns the call's
 * timers: {@code upstream.timeout}, and after its client cancelled it, {@code
 * upstream.cancelGrace}. A message that answers the call is held until its outcome is durable; when
 * the call settles without an answer while an SSE stream is open, the client learns of it as an
 * error event for its request.
 *
 * <p>Cancellation: a {@code notifications/cancelled} naming the call on its session reaches the tap
 * through {@link CancelTargets} (the notification itself goes on upstream unchanged); an answer
 * that still comes within the grace is recorded as any answer, and without one the call is recorded
 * {@code outcome_unknown} when the grace ends, or at once when the upstream's response ends first.
 * A 2026-07-28 client that closes the stream of a tool whose contract cancels ({@link
 * #onClientClosed}) settles the call at once. Either way a retry gets the contract's
 * unknown-outcome policy instead of waiting for {@code upstream.timeout}.
 */
final class DispatchTap implements MessageTap, CancelTargets.Target {
  private final ProxyContext ctx;
  private final DispatchRecorder recorder;
  private final Context context;
  private volatile StreamBuffer stream;
  private Consumer<CallReply> giveUp = told -> {};
  private long timer = -1;
  private long grace = -1;
  private String listedAs;

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

  /**
   * The request is being sent: starts the {@code upstream.timeout} timer and, on a legacy-era
   * {@code session} (may be null), lists the call for its client's {@code notifications/cancelled}.
   * {@code giveUp} gets what the client is told when the tap stops waiting for an answer (the
   * timeout, a cancellation); it should end the client's answer and reset the upstream request.
   */
  void arm(String session, Consumer<CallReply> giveUp) {
    this.giveUp = giveUp;
    timer =
        context.owner().setTimer(ctx.upstreamTimeoutMs(), t -> stopWaiting(recorder.timedOut()));
    listedAs = ctx.cancels().add(session, recorder.requestId(), this);
  }

  /** Stops the timers and unlists the call: it settled. */
  void disarm() {
    if (timer >= 0) {
      context.owner().cancelTimer(timer);
      timer = -1;
    }
    if (grace >= 0) {
      context.owner().cancelTimer(grace);
      grace = -1;
    }
    ctx.cancels().remove(listedAs, this);
    listedAs = null;
  }

  @Override
  public void cancelledByClient() {
    context.runOnContext(v -> onCancelled());
  }

  private void onCancelled() {
    listedAs = null; // the registry dropped it
    if (recorder.settled()) {
      return;
    }
    long ms = ctx.cancelGraceMs();
    if (ms <= 0) {
      stopWaiting(recorder.cancelled());
    } else if (grace < 0) {
      grace = context.owner().setTimer(ms, t -> stopWaiting(recorder.cancelled()));
    }
  }

  /** A 2026-07-28 client closed the stream of a call whose contract cancels: settle it now. */
  @Override
  public void onClientClosed() {
    stopWaiting(recorder.cancelled());
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
    ended();
  }

  @Override
  public void onFailure(String reason) {
    failed(reason);
  }

  /** The response ended without the answer: records it, and returns what the client is told. */
  CallReply ended() {
    disarm();
    CallReply told = recorder.ended();
    tell(told);
    return told;
  }

  /** The response broke before the answer: records it, and returns what the client is told. */
  CallReply failed(String reason) {
    disarm();
    CallReply told = recorder.broke(reason);
    tell(told);
    return told;
  }

  /** {@code told} (null: the call was settled already) ends the wait for an answer. */
  private void stopWaiting(CallReply told) {
    if (told == null) {
      return;
    }
    disarm();
    tell(told);
    giveUp.accept(told);
  }

  /**
   * On an SSE stream the client already has a 200: it learns what became of the call as one more
   * event (core's answer or refusal).
   */
  private void tell(CallReply told) {
    StreamBuffer s = stream;
    if (told != null && s != null) {
      s.append(SseEvent.message(CallReplies.message(told)), Delivery.NONE);
    }
  }
}
