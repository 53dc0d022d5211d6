package dev.tally.core.call;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tally.core.execution.Execution;
import dev.tally.core.gate.Confirmations;
import dev.tally.core.gate.Decision;
import dev.tally.core.gate.PendingPreview;
import dev.tally.core.gate.RequestStates;
import dev.tally.core.mcp.ProtocolVersions;
import dev.tally.core.mcp.TallyCode;
import dev.tally.core.mcp.TallyError;
import dev.tally.core.mcp.ToolCallEnvelope;
import dev.tally.core.mcp.ToolResults;
import dev.tally.core.observe.RequestSpan;
import java.time.Duration;
import java.time.Instant;
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

  static final TallyError STATE_MISMATCH =
      TallyError.of(
          TallyError.Code.REQUEST_STATE_INVALID,
          "params.requestState: made for another call; nothing was done. Re-send the call"
              + " without requestState and inputResponses");

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
    return walk(d, call, span, null);
  }

  /**
   * As {@link #walk(Decision, ToolCallEnvelope, RequestSpan)} for a call that echoed Tally's own
   * {@code requestState} ({@code followUp}, null for any other call): a decision about another
   * execution than the state was made for is refused ({@code REQUEST_STATE_INVALID}), nothing sent.
   */
  CompletionStage<CallReply> walk(
      Decision d, ToolCallEnvelope call, RequestSpan span, ConfirmationOffer.FollowUp followUp) {
    CallSpans.decided(span, admission.telemetry().meter(), call.tool(), d);
    JsonNode id = call.id();
    if (followUp != null && !aboutStatedExecution(d, followUp)) {
      if (d instanceof Decision.Dispatch dispatch) {
        dispatch.inFlight().failedBeforeEffect(0, "the call's requestState names another call");
      }
      span.error(STATE_MISMATCH.code().name());
      return done(CallReply.Refusal.of(id, STATE_MISMATCH));
    }
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
      return pending(admission.confirmations(), r.execution(), call, followUp);
    }
    if (d instanceof Decision.Respond r) {
      return done(
          new CallReply.Answer(
              typed(call, ToolResults.respond(id, r.code(), r.execution())), Delivery.NONE));
    }
    if (d instanceof Decision.Refuse r) {
      if (r.error().code().isValidation()) {
        return done(
            new CallReply.Answer(
                typed(call, ToolResults.validationError(id, r.error())), Delivery.NONE));
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
                return walk(settled, call, span, followUp);
              }
              Throwable t =
                  err instanceof CompletionException && err.getCause() != null
                      ? err.getCause()
                      : err;
              if (t instanceof TimeoutException) {
                return walk(
                    new Decision.Respond(TallyCode.IDEMPOTENCY_IN_PROGRESS, a.execution()),
                    call,
                    span,
                    followUp);
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
      Confirmations c, Execution e, ToolCallEnvelope call, ConfirmationOffer.FollowUp followUp) {
    JsonNode id = call.id();
    return c.storeCall(e, call.original())
        .handle(
            (stored, err) -> {
              if (err != null) {
                return (CallReply) CallReply.Refusal.of(id, CallIntake.NOT_ADMITTED);
              }
              Instant expiresAt = c.expiresAt(stored);
              String url = c.confirmUrl(stored.id());
              ObjectNode preview =
                  PendingPreview.of(
                      admission.contracts().resolve(stored.tool()), target, call.arguments());
              if (ConfirmationOffer.of(call, stored, followUp)
                  == ConfirmationOffer.URL_ELICITATION) {
                String state =
                    c.requestStates()
                        .issue(stored.actor(), stored, expiresAt.plus(RequestStates.GRACE));
                return new CallReply.Answer(
                    ToolResults.inputRequired(id, stored, expiresAt, url, preview, state),
                    Delivery.NONE);
              }
              return new CallReply.Answer(
                  typed(call, ToolResults.pending(id, stored, expiresAt, url, preview)),
                  Delivery.NONE);
            });
  }

  /**
   * A result Tally wrote itself, as the call's era wants it: in the 2026-07-28 era with {@code
   * resultType: "complete"} (replays keep the upstream's own result as it was).
   */
  private static byte[] typed(ToolCallEnvelope call, byte[] answer) {
    return ProtocolVersions.isModern(call.metaVersion())
        ? ToolResults.typedComplete(answer)
        : answer;
  }

  /** Whether {@code d} is about the execution {@code followUp}'s state was made for. */
  private static boolean aboutStatedExecution(Decision d, ConfirmationOffer.FollowUp followUp) {
    if (d instanceof Decision.Dispatch x) {
      return x.inFlight().id().equals(followUp.claims().execution());
    }
    Execution e = null;
    if (d instanceof Decision.Respond r) {
      e = r.execution();
    } else if (d instanceof Decision.Replay r) {
      e = r.execution();
    } else if (d instanceof Decision.Attach a) {
      e = a.execution();
    }
    // A refusal or a pass-through concerns no execution: it stands as it is.
    return e == null || followUp.claims().describes(e);
  }

  private static CompletionStage<CallReply> done(CallReply r) {
    return CompletableFuture.completedFuture(r);
  }
}
