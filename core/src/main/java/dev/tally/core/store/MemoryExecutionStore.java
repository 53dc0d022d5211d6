package dev.tally.core.store;

import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.execution.Lease;
import dev.tally.core.execution.Transition;
import dev.tally.core.observe.Meter;
import dev.tally.core.store.internal.ExecutionTable;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * An {@link ExecutionStore} that keeps executions in memory only, bounded by an estimate of the
 * heap they take ({@code --store memory}; ARCHITECTURE.md §8). For tests and throwaway use: nothing
 * survives the process. Every stage it returns is already complete, except {@link #awaitChange},
 * which completes on the writing thread or on a timer and never blocks one.
 *
 * <p><b>What the bound may drop.</b> Records live in a Caffeine cache bounded by weight (record
 * estimate plus result bytes). Eviction never drops a record that still matters for matching: a
 * record that is not terminal (accepted, authorized, pending confirmation, dispatched, outcome
 * unknown, completed, completed but not delivered) or whose state lets it hold its match key
 * (rejected, delivered under an idempotency key) is pinned with weight zero, which Caffeine's size
 * eviction skips (see {@link ExecutionTable#isPinned}). Only records whose key is released — {@code
 * failed}, {@code cancelled}, {@code expired}, and {@code delivered} records matched by fingerprint
 * — can be evicted; losing one only loses history. Pinned records whose hold ran out by time leave
 * through {@link #purge}.
 *
 * <p><b>When pinned records fill the bound</b>, a new claim fails closed with {@link
 * StoreException.Code#UNAVAILABLE} (the gate refuses the call rather than run it unrecorded) and
 * {@link #isWritable()} turns false until executions finish or are purged. Transitions of records
 * already admitted still succeed, so a result can grow the pinned set past the bound by at most the
 * results in flight; evictable records are then evicted first.
 */
public final class MemoryExecutionStore implements ExecutionStore {
  private final MemoryStoreOptions options;
  private final ExecutionTable table;
  private volatile boolean closed;

  /** How much of the bound is in use, in estimated bytes. */
  public record Usage(
      long pinnedBytes, long evictableBytes, long maxWeightBytes, long executions) {}

  private MemoryExecutionStore(MemoryStoreOptions options, ExecutionTable table) {
    this.options = options;
    this.table = table;
  }

  /** A new, empty store. */
  public static MemoryExecutionStore create(MemoryStoreOptions options) {
    Objects.requireNonNull(options, "options");
    return new MemoryExecutionStore(
        options, ExecutionTable.bounded(options.maxResultBytes(), options.maxWeightBytes()));
  }

  /** A store over a given table (tests replay one table into another to test recovery). */
  static MemoryExecutionStore over(MemoryStoreOptions options, ExecutionTable table) {
    return new MemoryExecutionStore(options, table);
  }

  ExecutionTable table() {
    return table;
  }

  /** A new, empty store with {@link MemoryStoreOptions#defaults()}. */
  public static MemoryExecutionStore create() {
    return create(MemoryStoreOptions.defaults());
  }

  @Override
  public CompletionStage<Claim> claim(Execution candidate, Instant now) {
    return run(() -> table.claim(candidate, now));
  }

  @Override
  public CompletionStage<Optional<Execution>> find(ExecutionId id) {
    return run(() -> table.find(id));
  }

  @Override
  public CompletionStage<Optional<Execution>> findHolder(String matchKey, Instant now) {
    return run(() -> table.findHolder(matchKey, now));
  }

  @Override
  public CompletionStage<Execution> transition(Transition t) {
    return run(() -> table.transition(t).execution());
  }

  @Override
  public CompletionStage<Execution> touch(
      ExecutionId id, long expectedVersion, Lease lease, boolean awaitingInput) {
    return run(() -> table.touch(id, expectedVersion, lease, awaitingInput));
  }

  @Override
  public CompletionStage<Optional<byte[]>> result(ExecutionId id) {
    return run(() -> table.result(id));
  }

  @Override
  public CompletionStage<Optional<Execution>> awaitChange(
      ExecutionId id, long afterVersion, Duration maxWait) {
    if (closed) {
      return CompletableFuture.failedFuture(closedError());
    }
    try {
      return table.awaitChange(id, afterVersion, maxWait);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  @Override
  public CompletionStage<List<Execution>> lapsed(Instant now, int limit) {
    return run(() -> table.lapsed(now, limit));
  }

  @Override
  public CompletionStage<Page> list(ExecutionQuery query) {
    return run(() -> table.list(query));
  }

  @Override
  public CompletionStage<Integer> purge(Instant now, int limit) {
    return run(() -> table.purge(now, limit).size());
  }

  @Override
  public int maxResultBytes() {
    return options.maxResultBytes();
  }

  /** Open, and the pinned records leave room below the bound for a typical new record. */
  @Override
  public boolean isWritable() {
    return !closed && table.hasRoom();
  }

  /** The estimated bytes in use. */
  public Usage usage() {
    return new Usage(
        table.pinnedWeight(), table.evictableWeight(), options.maxWeightBytes(), table.size());
  }

  /** The store's heap, its size and the operator's {@code outcome_unknown} gauge. */
  @Override
  public void metrics(Meter m) {
    m.gauge(
        "tally.memory.store_pinned_bytes",
        "estimated heap of records that must not be evicted (in flight or holding their key)",
        "",
        () -> usage().pinnedBytes());
    m.gauge(
        "tally.memory.store_evictable_bytes",
        "estimated heap of finished records the store may evict",
        "",
        () -> usage().evictableBytes());
    m.gauge(
        "tally.memory.store_max_bytes",
        "the bound on the store's estimated heap (memory.maxBytes)",
        "",
        () -> usage().maxWeightBytes());
    m.gauge(
        "tally.store.executions",
        "executions the store holds in memory (each until its retention ends and it is purged)",
        "",
        () -> usage().executions());
    m.gauge(
        "tally.outcome_unknown.current",
        "executions in outcome_unknown now: each needs a status check or an operator",
        "",
        table::unknownCount);
  }

  /** Closes the store: pending waits and every later operation fail with {@code CLOSED}. */
  @Override
  public void close() {
    if (!closed) {
      closed = true;
      table.failWaiters(closedError());
    }
  }

  private <T> CompletableFuture<T> run(Supplier<T> operation) {
    if (closed) {
      return CompletableFuture.failedFuture(closedError());
    }
    try {
      return CompletableFuture.completedFuture(operation.get());
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  private static StoreException closedError() {
    return new StoreException(StoreException.Code.CLOSED, "the memory store is closed");
  }
}
