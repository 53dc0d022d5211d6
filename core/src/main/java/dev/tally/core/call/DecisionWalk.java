package dev.tally.core.call;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.gate.Confirmations;
import dev.tally.core.gate.Decision;
import dev.tally.core.gate.PendingPreview;
import dev.tally.core.mcp.TallyCode;
import dev.tally.core.mcp.TallyError;
import dev.tally.core.mcp.ToolCallEnvelope;
import dev.tally.core.mcp.ToolResults;
import dev.tally.core.observe.RequestSpan;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Turns the gate's {@link Decision} on one call into the {@link CallReply} an adapter carries out:
 * the one walk both adapters share (ARCHITECTURE.md §6 step 5). An attach waits here (bounded by
 * the tool's attach wait plus {@link #SLACK}: the gate bounds it itself, this is the safety net);
 * replays, explicit results and refusals are rendered here with {@link ToolResults}.
 */
final class DecisionWalk {
  /** Slack over a contract's attach wait before the walk stops waiting for the gate itself. */
  static final Duration SLACK = Duration.ofSeconds(5);

  static final TallyError AWAIT_FAILED =
      TallyError.of(
          TallyError.Code.STORE_UNAVAILABLE,
          "the running execution could not be awaited; nothing more was sent, retry later");

  private final Admission admission;
  private final String target;

  DecisionWalk(Admission admission) {
    this(admission, "");
  }

  DecisionWalk(Admission admission, String target) {
    this.admission = admission;
    this.target = target;
  }

  CompletionStage<CallReply> walk(Decision d, ToolCallEnvelope call) {
    return walk(d, call, RequestSpan.NONE);
  }

  /** As {@link #walk(Decision, ToolCallEnvelope)}, recording the decision on {@code span}. */
  CompletionStage<CallReply> walk(Decision d, ToolCallEnvelope call, RequestSpan span) {
    CallSpans.decided(span, admission.telemetry().meter(), call.tool(), d);
    JsonNode id = call.id();
    if (d instanceof Decision.PassThrough) {
      return done(new CallReply.Forward());
    }
    if (d instanceof Decision.Dispatch dispatch) {
      // The dispatch span first: its trace context goes into _meta as into the header.
      DispatchRecorder recorder = DispatchRecorder.of(dispatch.inFlight(), id, span);
      return done(
          new CallReply.Dispatch(
              dispatch.inFlight(),
              call.forUpstream(
                  dispatch.inFlight().id().value(), recorder.traceparent(), recorder.tracestate()),
              recorder));
    }
    if (d instanceof Decision.Replay r) {
      return done(
          new CallReply.Answer(
              ToolResults.replay(id, r.execution(), r.result()),
              ok -> {
                if (ok) {
                  admission.replayDelivered(r.execution());
                }
              }));
    }
    if (d instanceof Decision.Respond r
        && r.code() == TallyCode.PENDING_CONFIRMATION
        && admission.confirmations() != null) {
      return pending(admission.confirmations(), r.execution(), call);
    }
    if (d instanceof Decision.Respond r) {
      return done(
          new CallReply.Answer(ToolResults.respond(id, r.code(), r.execution()), Delivery.NONE));
    }
    if (d instanceof Decision.Refuse r) {
      if (r.error().code().isValidation()) {
        return done(
            new CallReply.Answer(ToolResults.validationError(id, r.error()), Delivery.NONE));
      }
      return done(CallReply.Refusal.of(id, r.error()));
    }
    Decision.Attach a = (Decision.Attach) d;
    Duration wait = admission.contracts().resolve(a.execution().tool()).attachWait().plus(SLACK);
    long waitStart = System.nanoTime();
    return a.settled()
        .toCompletableFuture()
        .orTimeout(wait.toMillis(), TimeUnit.MILLISECONDS)
        .handle(
            (settled, err) -> {
              admission.telemetry().meter().attachWait(System.nanoTime() - waitStart);
              if (err == null) {
                return walk(settled, call, span);
              }
              Throwable t =
                  err instanceof CompletionException && err.getCause() != null
                      ? err.getCause()
                      : err;
              if (t instanceof TimeoutException) {
                return walk(
                    new Decision.Respond(TallyCode.IDEMPOTENCY_IN_PROGRESS, a.execution()),
                    call,
                    span);
              }
              span.error(AWAIT_FAILED.code().name());
              return done(CallReply.Refusal.of(id, AWAIT_FAILED));
            })
        .thenCompose(s -> s);
  }

  /**
   * The pending result (issue 18), once the call it will run is stored with the execution: a store
   * that cannot keep it refuses the call (nothing ran; the retry stores it).
   */
  private CompletionStage<CallReply> pending(
      Confirmations c, dev.tally.core.execution.Execution e, ToolCallEnvelope call) {
    JsonNode id = call.id();
    return c.storeCall(e, call.original())
        .handle(
            (stored, err) -> {
              if (err != null) {
                return (CallReply) CallReply.Refusal.of(id, CallIntake.NOT_ADMITTED);
              }
              return new CallReply.Answer(
                  ToolResults.pending(
                      id,
                      stored,
                      c.expiresAt(stored),
                      c.confirmUrl(stored.id()),
                      PendingPreview.of(
                          admission.contracts().resolve(stored.tool()), target, call.arguments())),
                  Delivery.NONE);
            });
  }

  private static CompletionStage<CallReply> done(CallReply r) {
    return CompletableFuture.completedFuture(r);
  }
}
