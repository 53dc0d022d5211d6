package dev.tally.core.gate;

import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.execution.Transition;
import dev.tally.core.store.ExecutionStore;
import dev.tally.core.store.StoreException;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * What a human operator may do to an execution through the admin API: settle an unknown outcome,
 * confirm or cancel a pending one. Every action is a recorded transition, checked by the state
 * machine; an action that does not fit the current state is refused with a coded reason.
 */
public final class Operator {
  private final ExecutionStore store;
  private final Clock clock;

  private Operator(ExecutionStore store, Clock clock) {
    this.store = store;
    this.clock = clock;
  }

  public static Operator create(ExecutionStore store, Clock clock) {
    return new Operator(Objects.requireNonNull(store), Objects.requireNonNull(clock));
  }

  /** Why an operator action was refused. */
  public enum Refusal {
    NOT_FOUND,
    WRONG_STATE
  }

  /** An operator action that does not fit; {@link #refusal()} says why. */
  public static final class OperatorException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final Refusal refusal;

    OperatorException(Refusal refusal, String message) {
      super(message, null, false, false);
      this.refusal = refusal;
    }

    public Refusal refusal() {
      return refusal;
    }
  }

  /**
   * Settles an {@code outcome_unknown} execution as completed with {@code result} (the JSON-RPC
   * result object the operator established); retries then replay it. Retained for {@code
   * retention}.
   *
   * <p>No client has this result yet, and no owner is left to record its delivery, so the execution
   * is recorded {@code completed}, then {@code completed_not_delivered}: the first replay that
   * reaches a client makes it {@code delivered}, as for any result lost on the way back. If only
   * the first write succeeds, the execution stays {@code completed} and still replays.
   */
  public CompletionStage<Execution> resolveCompleted(
      ExecutionId id, byte[] result, boolean isError, Duration retention) {
    return act(
            id,
            ExecutionState.OUTCOME_UNKNOWN,
            e ->
                Transition.to(e, ExecutionState.COMPLETED, clock.instant())
                    .withResult(result, isError)
                    .withRetainUntil(clock.instant().plus(retention)))
        .thenCompose(
            completed ->
                store
                    .transition(
                        Transition.to(
                            completed, ExecutionState.COMPLETED_NOT_DELIVERED, clock.instant()))
                    .exceptionally(err -> completed));
  }

  /**
   * Settles an {@code outcome_unknown} execution as failed: the operator established that nothing
   * happened. This releases its key, so a retry executes anew.
   */
  public CompletionStage<Execution> resolveFailed(ExecutionId id) {
    return act(
        id,
        ExecutionState.OUTCOME_UNKNOWN,
        e -> Transition.to(e, ExecutionState.FAILED, clock.instant()));
  }

  /** Confirms a {@code pending_confirmation} execution; the next retry dispatches it. */
  public CompletionStage<Execution> confirm(ExecutionId id) {
    return act(
        id,
        ExecutionState.PENDING_CONFIRMATION,
        e -> Transition.to(e, ExecutionState.AUTHORIZED, clock.instant()));
  }

  /** Cancels a {@code pending_confirmation} execution. */
  public CompletionStage<Execution> cancel(ExecutionId id) {
    return act(
        id,
        ExecutionState.PENDING_CONFIRMATION,
        e -> Transition.to(e, ExecutionState.CANCELLED, clock.instant()));
  }

  private CompletionStage<Execution> act(
      ExecutionId id,
      ExecutionState required,
      java.util.function.Function<Execution, Transition> t) {
    return store
        .find(id)
        .thenCompose(
            found -> {
              if (found.isEmpty()) {
                return CompletableFuture.failedFuture(
                    new OperatorException(Refusal.NOT_FOUND, "no execution " + id));
              }
              Execution e = found.get();
              if (e.state() != required) {
                return CompletableFuture.failedFuture(
                    new OperatorException(
                        Refusal.WRONG_STATE,
                        "execution "
                            + id
                            + " is "
                            + e.state().wireName()
                            + " (expected: "
                            + required.wireName()
                            + ")"));
              }
              return store
                  .transition(t.apply(e))
                  .exceptionallyCompose(
                      err -> {
                        Throwable c = err.getCause() != null ? err.getCause() : err;
                        if (c instanceof StoreException se
                            && se.code() == StoreException.Code.STALE_VERSION) {
                          return CompletableFuture.failedFuture(
                              new OperatorException(
                                  Refusal.WRONG_STATE,
                                  "execution " + id + " changed meanwhile; look again"));
                        }
                        return CompletableFuture.failedFuture(c);
                      });
            });
  }
}
