package dev.tally.core.gate;

import dev.tally.core.contract.ToolContract;
import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.execution.Lease;
import dev.tally.core.execution.RpcError;
import dev.tally.core.execution.Transition;
import dev.tally.core.mcp.AnswerClassifier;
import dev.tally.core.store.ExecutionStore;
import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * The gate's {@link InFlight}: serializes the adapter's reports and the lease heartbeats on one
 * execution so that each compare-and-set sees the version the previous one produced.
 */
final class InFlightExecution implements InFlight {
  private final ExecutionStore store;
  private final Clock clock;
  private final ToolContract contract;
  private final boolean continued;
  private final String owner;
  private final java.time.Duration leaseLength;
  private final Runnable onSettled;
  private volatile Execution current;
  private CompletableFuture<Execution> tail;

  InFlightExecution(
      Execution execution,
      ToolContract contract,
      boolean continued,
      ExecutionStore store,
      Clock clock,
      String owner,
      java.time.Duration leaseLength,
      Runnable onSettled) {
    this.current = execution;
    this.contract = contract;
    this.continued = continued;
    this.store = store;
    this.clock = clock;
    this.owner = owner;
    this.leaseLength = leaseLength;
    this.onSettled = onSettled;
    this.tail = CompletableFuture.completedFuture(execution);
  }

  @Override
  public ExecutionId id() {
    return current.id();
  }

  @Override
  public Execution execution() {
    return current;
  }

  @Override
  public ToolContract contract() {
    return contract;
  }

  @Override
  public boolean continued() {
    return continued;
  }

  @Override
  public CompletionStage<Execution> completed(int httpStatus, byte[] result, boolean isError) {
    if (isError && releasesOnError()) {
      // The tool said it failed: the retry runs it again (the caller saw this answer live).
      return settle(
          e ->
              Transition.to(e, ExecutionState.FAILED, now())
                  .clearingLease()
                  .withOutcome(httpStatus, null)
                  .withRetainUntil(retainUntil()));
    }
    return settle(
        e ->
            Transition.to(e, ExecutionState.COMPLETED, now())
                .clearingLease()
                .withOutcome(httpStatus, null)
                .withResult(result, isError)
                .withRetainUntil(retainUntil()));
  }

  @Override
  public CompletionStage<Execution> rpcError(int httpStatus, RpcError error) {
    return rpcError(httpStatus, error, null);
  }

  @Override
  public CompletionStage<Execution> rpcError(int httpStatus, RpcError error, byte[] data) {
    ExecutionState to =
        !AnswerClassifier.provesNoEffect(error.code())
            ? releasesOnError() ? ExecutionState.FAILED : ExecutionState.COMPLETED
            : mayHaveRunBefore() ? ExecutionState.OUTCOME_UNKNOWN : ExecutionState.FAILED;
    return settle(
        e -> {
          Transition t =
              Transition.to(e, to, now())
                  .clearingLease()
                  // An error kept beside an unknown outcome would be replayed as the outcome
                  // once a later attempt completes: only a settled outcome keeps it.
                  .withOutcome(httpStatus, to == ExecutionState.OUTCOME_UNKNOWN ? null : error)
                  .withRetainUntil(retainUntil());
          // The error's data is kept in the result's place (an error has no result).
          return to == ExecutionState.COMPLETED && data != null ? t.withResult(data, true) : t;
        });
  }

  @Override
  public CompletionStage<Execution> inputRequired(int httpStatus) {
    return enqueue(
        e -> {
          if (e.state() != ExecutionState.DISPATCHED) {
            return CompletableFuture.completedFuture(e);
          }
          return store.touch(e.id(), e.version(), e.lease(), true);
        },
        true);
  }

  @Override
  public CompletionStage<Execution> failedBeforeEffect(int httpStatus, String reason) {
    return settle(
        e ->
            Transition.to(
                    e,
                    mayHaveRunBefore() ? ExecutionState.OUTCOME_UNKNOWN : ExecutionState.FAILED,
                    now())
                .clearingLease()
                .withOutcome(httpStatus == 0 ? null : httpStatus, null));
  }

  /**
   * Whether a failed answer releases the intent: the contract says so (the default) and this is the
   * first attempt. A re-dispatch after an unknown outcome keeps its failure, because the earlier
   * attempt may have taken effect.
   */
  private boolean releasesOnError() {
    return contract.releaseOnError() && !mayHaveRunBefore();
  }

  /**
   * Whether an earlier attempt of this execution may have taken effect: it was {@code
   * outcome_unknown} before this re-dispatch. Then an answer proving that this attempt did not run
   * proves nothing about the earlier one, and the execution stays unknown (its key held, the next
   * retry re-dispatched under the same key) instead of failing and releasing its intent to a second
   * execution.
   */
  private boolean mayHaveRunBefore() {
    return current.at(ExecutionState.OUTCOME_UNKNOWN) != null;
  }

  @Override
  public CompletionStage<Execution> unknown(String reason) {
    return settle(e -> Transition.to(e, ExecutionState.OUTCOME_UNKNOWN, now()).clearingLease());
  }

  @Override
  public CompletionStage<Execution> delivered() {
    return afterCompletion(ExecutionState.DELIVERED);
  }

  @Override
  public CompletionStage<Execution> notDelivered() {
    return afterCompletion(ExecutionState.COMPLETED_NOT_DELIVERED);
  }

  /** Renews the lease if the execution is still dispatched; called by the {@link LeaseKeeper}. */
  CompletionStage<Execution> heartbeat() {
    return enqueue(
        e -> {
          if (e.state() != ExecutionState.DISPATCHED || e.awaitingInput()) {
            return CompletableFuture.completedFuture(e);
          }
          return store.touch(
              e.id(), e.version(), new Lease(owner, now().plus(leaseLength)), e.awaitingInput());
        },
        false);
  }

  boolean isDispatched() {
    return current.state() == ExecutionState.DISPATCHED && !current.awaitingInput();
  }

  private CompletionStage<Execution> afterCompletion(ExecutionState to) {
    return enqueue(
        e -> {
          boolean resumed =
              to == ExecutionState.DELIVERED && e.state() == ExecutionState.COMPLETED_NOT_DELIVERED;
          if (e.state() != ExecutionState.COMPLETED && !resumed) {
            // Failed, unknown or already settled: delivery says nothing new.
            return CompletableFuture.completedFuture(e);
          }
          return store.transition(Deliveries.transition(e, to, contract(), now()));
        },
        false);
  }

  private CompletionStage<Execution> settle(Function<Execution, Transition> t) {
    return enqueue(
        e -> {
          if (e.state() != ExecutionState.DISPATCHED) {
            return CompletableFuture.failedFuture(
                new IllegalStateException(
                    "execution " + e.id() + " is " + e.state().wireName() + ", not dispatched"));
          }
          return store.transition(t.apply(e));
        },
        true);
  }

  private synchronized CompletionStage<Execution> enqueue(
      Function<Execution, CompletionStage<Execution>> op, boolean settles) {
    CompletableFuture<Execution> next =
        tail.exceptionally(ignored -> current)
            .thenCompose(ignored -> op.apply(current))
            .thenApply(
                e -> {
                  current = e;
                  return e;
                })
            .toCompletableFuture();
    tail = next;
    if (settles) {
      next.whenComplete((e, err) -> onSettled.run());
    }
    return next;
  }

  @Override
  public Instant now() {
    return clock.instant();
  }

  private Instant retainUntil() {
    Instant base = now().plus(contract.resultRetention());
    return base.isAfter(current.retainUntil()) ? base : current.retainUntil();
  }
}
