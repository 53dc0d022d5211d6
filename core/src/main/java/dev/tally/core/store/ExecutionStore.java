package dev.tally.core.store;

import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.execution.Lease;
import dev.tally.core.execution.Transition;
import dev.tally.core.observe.Meter;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * Where executions live. Every operation is asynchronous and its stage completes only once the
 * effect is durable for this store (fsync'd for the journal, committed for PostgreSQL): the gate
 * relies on that to write {@code dispatched} before a byte goes upstream.
 *
 * <p>Failures complete the stage exceptionally with a {@link StoreException}; its {@link
 * StoreException#code()} says whether the caller may retry. An illegal transition completes it with
 * {@link dev.tally.core.execution.IllegalTransitionException}.
 *
 * <p>Every implementation must pass {@code ExecutionStoreContract} from core's test jar.
 */
public interface ExecutionStore extends AutoCloseable {

  /**
   * Atomically inserts {@code candidate} unless another record holds the same match key at {@code
   * now} (see {@link Execution#holdsKey(Instant)}). Exactly one of any number of concurrent claims
   * on one key wins.
   */
  CompletionStage<Claim> claim(Execution candidate, Instant now);

  /** The record with this id, if it exists and has not been purged. */
  CompletionStage<Optional<Execution>> find(ExecutionId id);

  /** The record holding {@code matchKey} at {@code now}, if any. */
  CompletionStage<Optional<Execution>> findHolder(String matchKey, Instant now);

  /**
   * Applies {@code t} as compare-and-set on {@link Transition#expectedVersion()}: fails with {@link
   * StoreException.Code#STALE_VERSION} if the record moved on, {@link
   * StoreException.Code#NOT_FOUND} if it is gone. Result bytes above {@link #maxResultBytes()} are
   * dropped and the stored {@link dev.tally.core.execution.ResultRef#retained()} is false.
   */
  CompletionStage<Execution> transition(Transition t);

  /**
   * Replaces the lease and the awaiting-input flag without a state change (heartbeat, take-over,
   * MRTR), as compare-and-set on {@code expectedVersion}.
   */
  CompletionStage<Execution> touch(
      ExecutionId id, long expectedVersion, Lease lease, boolean awaitingInput);

  /** The stored result bytes (the JSON-RPC {@code result} object), if retained. */
  CompletionStage<Optional<byte[]>> result(ExecutionId id);

  /**
   * Completes with the record once its version exceeds {@code afterVersion} (immediately if it
   * already does), or with the current record after {@code maxWait}. Completes with empty if the
   * record does not exist.
   */
  CompletionStage<Optional<Execution>> awaitChange(
      ExecutionId id, long afterVersion, Duration maxWait);

  /**
   * Dispatched executions whose lease lapsed before {@code now}, oldest first, at most {@code
   * limit}.
   */
  CompletionStage<List<Execution>> lapsed(Instant now, int limit);

  /** A page of records matching {@code query}, newest first. */
  CompletionStage<Page> list(ExecutionQuery query);

  /**
   * Deletes up to {@code limit} records whose retention ended before {@code now} and that no longer
   * hold their match key; completes with how many were deleted.
   */
  CompletionStage<Integer> purge(Instant now, int limit);

  /** The size cap for stored results, in bytes. */
  int maxResultBytes();

  /** Whether the store can currently accept writes (for readiness). */
  default boolean isWritable() {
    return true;
  }

  /**
   * Registers this store's own gauges and counters with {@code meter} (journal fsyncs, heap held,
   * round trips, clock offset …; docs/metrics.md); called once, when the runtime opens. Default
   * none.
   */
  default void metrics(Meter meter) {}

  @Override
  void close();
}
