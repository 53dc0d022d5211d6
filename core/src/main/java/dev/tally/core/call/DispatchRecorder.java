package dev.tally.core.call;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.gate.InFlight;
import dev.tally.core.mcp.AnswerClassifier;
import dev.tally.core.mcp.AnswerClassifier.Settlement;
import dev.tally.core.mcp.RpcOutcome;
import dev.tally.core.mcp.RpcResponseWatcher;
import dev.tally.core.mcp.TallyError;
import dev.tally.core.mcp.ToolResults;
import dev.tally.core.observe.CallLog;
import dev.tally.core.observe.RequestSpan;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Records what became of one dispatched {@code tools/call}, from what an adapter observes of the
 * upstream's response, by {@link AnswerClassifier}'s table: the answer (as soon as it is seen), or
 * its absence (an end, a break, a timeout), then whether the answer reached the client. The first
 * observation that settles the call wins; later ones change nothing. Thread-safe.
 *
 * <p>Adapters tell the client what the recorder returns: nothing more for an answer (the answer
 * itself goes on, once the returned stage says the outcome is durable), and the returned {@link
 * CallReply} when the call settled without one: an {@link CallReply.Answer} holding the explicit
 * {@code OUTCOME_UNKNOWN} tool result when the call was sent and its outcome is unknown (the same
 * answer its retry gets), a {@link CallReply.Refusal} when nothing was sent.
 */
public final class DispatchRecorder {
  /** What the client learns when the upstream could not be reached: nothing was sent. */
  public static final TallyError UNREACHABLE =
      TallyError.of(
          TallyError.Code.UPSTREAM_UNAVAILABLE,
          "the upstream MCP server cannot be reached; nothing was sent");

  private final InFlight inFlight;
  private final JsonNode requestId;
  private final AtomicBoolean settled = new AtomicBoolean();
  private final RequestSpan span;
  private final RequestSpan.Step dispatch;
  private volatile int status;

  DispatchRecorder(InFlight inFlight, JsonNode requestId, RequestSpan span) {
    this.inFlight = inFlight;
    this.requestId = requestId;
    this.span = span;
    this.dispatch = span.step(RequestSpan.StepKind.DISPATCH);
  }

  /** A recorder for {@code inFlight}, answering the JSON-RPC request {@code requestId}. */
  public static DispatchRecorder of(InFlight inFlight, JsonNode requestId) {
    return of(inFlight, requestId, RequestSpan.NONE);
  }

  /**
   * As {@link #of(InFlight, JsonNode)}, timing the dispatch as a child of the request's {@code
   * span} (from now until the call settles) and recording its answer's durable write as another.
   */
  public static DispatchRecorder of(InFlight inFlight, JsonNode requestId, RequestSpan span) {
    return new DispatchRecorder(inFlight, requestId, span);
  }

  /** The W3C {@code traceparent} of the dispatch's span, for the upstream request. */
  public String traceparent() {
    return dispatch.traceparent();
  }

  /** The W3C {@code tracestate} that goes with {@link #traceparent()}, or null when none. */
  public String tracestate() {
    return dispatch.tracestate();
  }

  public InFlight inFlight() {
    return inFlight;
  }

  /** The id of the request whose answer is awaited. */
  public JsonNode requestId() {
    return requestId;
  }

  /** Whether the call's outcome is recorded already (its answer, or a failure). */
  public boolean settled() {
    return settled.get();
  }

  /** The upstream's response head arrived with {@code httpStatus}. */
  public void head(int httpStatus) {
    this.status = httpStatus;
  }

  /**
   * One complete JSON-RPC message of the response (a JSON body, or one SSE event's data). When it
   * answers the call, records it and returns a stage that completes once the outcome is durable
   * (never exceptionally), with whom to tell whether the answer reached the client; returns {@code
   * null} when it is not the answer (a notification, another id) or the call is settled already:
   * pass such a message on at once.
   */
  public CompletionStage<Delivery> message(byte[] message) {
    if (settled.get()) {
      return null;
    }
    RpcOutcome outcome = RpcResponseWatcher.outcomeOf(message, requestId);
    return outcome == null ? null : answer(outcome);
  }

  /** As {@link #message} for an answer an adapter's watcher already parsed. */
  public CompletionStage<Delivery> answer(RpcOutcome outcome) {
    if (!settled.compareAndSet(false, true)) {
      return null;
    }
    Settlement s = AnswerClassifier.of(outcome);
    String error =
        outcome instanceof RpcOutcome.Error err
            ? Integer.toString(err.error().code())
            : ((RpcOutcome.Result) outcome).isError() ? "tool_error" : null;
    dispatch.end(error);
    if (error != null) {
      span.error(error);
    }
    RequestSpan.Step complete = span.step(RequestSpan.StepKind.COMPLETE);
    CompletionStage<Execution> stored =
        switch (s) {
          case INPUT_REQUIRED -> inFlight.inputRequired(status);
          case COMPLETED -> {
            RpcOutcome.Result r = (RpcOutcome.Result) outcome;
            yield inFlight.completed(status, r.result(), r.isError());
          }
          default -> {
            RpcOutcome.Error err = (RpcOutcome.Error) outcome;
            yield inFlight.rpcError(status, err.error(), err.data());
          }
        };
    boolean replayable = s == Settlement.COMPLETED || s == Settlement.COMPLETED_WITH_ERROR;
    // A store failure must not keep the answer from the client; the lease reaper settles it.
    return stored.handle(
        (e, err) -> {
          if (err == null) {
            complete.state(e.state().wireName());
            span.execution(e.id().value(), e.state().wireName());
          }
          complete.end(err == null ? null : "STORE_UNAVAILABLE");
          return err == null && replayable && e.state() == ExecutionState.COMPLETED
              ? delivery()
              : Delivery.NONE;
        });
  }

  /**
   * The response ended without the answer. Returns what the client must be told, or {@code null}
   * when the call was settled already or the upstream's own answerless response stands (an HTTP
   * 4xx: nothing ran).
   */
  public CallReply ended() {
    if (!settled.compareAndSet(false, true)) {
      return null;
    }
    if (AnswerClassifier.ofAnswerlessEnd(status) == Settlement.FAILED_BEFORE_EFFECT) {
      inFlight.failedBeforeEffect(status, "upstream answered HTTP " + status + " without a result");
      failed(Integer.toString(status));
      return null;
    }
    return unknown("upstream response ended without an answer");
  }

  /**
   * The request or its response broke after the request may have reached the upstream (reset, parse
   * limit, a local failure while the tool ran). Returns what the client must be told, or {@code
   * null} when the call was settled already.
   */
  public CallReply broke(String reason) {
    if (!settled.compareAndSet(false, true)) {
      return null;
    }
    return unknown(reason);
  }

  /**
   * No answer within {@code upstream.timeout}. Returns what the client must be told, or {@code
   * null} when the call was settled already (then nothing is to be done).
   */
  public CallReply timedOut() {
    if (!settled.compareAndSet(false, true)) {
      return null;
    }
    return unknown("no answer within upstream.timeout");
  }

  /**
   * The call's own client cancelled it ({@code notifications/cancelled} naming its request, or a
   * 2026-07-28 client closing the stream of a tool whose contract cancels on disconnect) and no
   * answer is awaited any longer: records {@code outcome_unknown} now, so that a retry gets the
   * contract's unknown-outcome policy ({@code keyed}: the same execution id again) instead of
   * {@code IDEMPOTENCY_IN_PROGRESS} until {@code upstream.timeout}. An answer seen before this call
   * was recorded and stands. Returns what the client is told, or {@code null} when the call was
   * settled already.
   */
  public CallReply cancelled() {
    if (!settled.compareAndSet(false, true)) {
      return null;
    }
    return unknown("cancelled by its client before an answer");
  }

  /** No connection to the upstream could be had: nothing was sent (a refusal; retry later). */
  public CallReply.Refusal unreachable() {
    if (settled.compareAndSet(false, true)) {
      inFlight.failedBeforeEffect(0, "upstream connection failed");
      failed(UNREACHABLE.code().name());
      CallLog.upstreamUnreachable(inFlight.id().value(), inFlight.contract().tool(), traceparent());
    }
    return CallReply.Refusal.of(requestId, UNREACHABLE);
  }

  /**
   * Records {@code outcome_unknown} and returns what the client is told: the same explicit tool
   * result ({@code OUTCOME_UNKNOWN}) its retry would get, not a transport error, so an SDK returns
   * it instead of throwing and the agent hears the truth the first time.
   */
  private CallReply unknown(String reason) {
    Execution before = inFlight.execution();
    inFlight.unknown(reason);
    failed(ExecutionState.OUTCOME_UNKNOWN.wireName());
    CallLog.outcomeUnknown(before.id().value(), before.tool(), reason, traceparent());
    span.execution(before.id().value(), ExecutionState.OUTCOME_UNKNOWN.wireName());
    Execution shown;
    try {
      shown =
          before.apply(
              dev.tally.core.execution.Transition.to(
                      before, ExecutionState.OUTCOME_UNKNOWN, inFlight.now())
                  .clearingLease());
    } catch (RuntimeException e) {
      shown = before; // not dispatched (cannot happen for a dispatch): show it as it stands
    }
    return new CallReply.Answer(
        ToolResults.unknownOutcome(requestId, shown, inFlight.contract()), Delivery.NONE);
  }

  /** The dispatch ended without an answer: {@code errorType} on its span and the request's. */
  private void failed(String errorType) {
    dispatch.end(errorType);
    span.error(errorType);
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

  /** A completed stage holding {@link Delivery#NONE} (for callers that need one). */
  static CompletionStage<Delivery> none() {
    return CompletableFuture.completedFuture(Delivery.NONE);
  }
}
