package dev.tally.core.gate;

import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.execution.Transition;
import dev.tally.core.store.ExecutionStore;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Keeps the leases of this instance's in-flight executions alive and turns dispatched executions
 * whose owner stopped heartbeating into {@code outcome_unknown} (ARCHITECTURE.md §5, last line).
 * One daemon thread; all store work is asynchronous.
 */
final class LeaseKeeper implements AutoCloseable {
  private static final int REAP_BATCH = 100;
  private static final int PURGE_BATCH = 500;

  /** Retention purges run every this many ticks (every minute at the default heartbeat). */
  private static final int PURGE_EVERY = 6;

  private final ExecutionStore store;
  private final Clock clock;
  private final Set<InFlightExecution> inFlight = ConcurrentHashMap.newKeySet();
  private final ScheduledExecutorService timer;
  private int ticks;

  LeaseKeeper(ExecutionStore store, Clock clock, Duration period) {
    this.store = store;
    this.clock = clock;
    this.timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "tally-lease-keeper");
              t.setDaemon(true);
              return t;
            });
    long ms = Math.max(1, period.toMillis());
    timer.scheduleWithFixedDelay(this::tick, ms, ms, TimeUnit.MILLISECONDS);
  }

  void track(InFlightExecution f) {
    inFlight.add(f);
  }

  void untrack(InFlightExecution f) {
    inFlight.remove(f);
  }

  int size() {
    return inFlight.size();
  }

  Set<InFlightExecution> tracked() {
    return Set.copyOf(inFlight);
  }

  /**
   * One round: heartbeat everything in flight here, reap lapsed leases, and now and then purge
   * records past their retention (in small batches, so no store holds a long lock).
   */
  CompletionStage<Integer> tick() {
    try {
      for (InFlightExecution f : inFlight) {
        if (f.isDispatched()) {
          f.heartbeat();
        }
      }
      if (++ticks % PURGE_EVERY == 0) {
        store.purge(clock.instant(), PURGE_BATCH);
      }
      return reap();
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /** Marks dispatched executions with lapsed leases (their owner is gone) as outcome_unknown. */
  CompletionStage<Integer> reap() {
    return store
        .lapsed(clock.instant(), REAP_BATCH)
        .thenCompose(
            (List<Execution> lapsed) -> {
              CompletableFuture<?>[] all =
                  lapsed.stream()
                      .filter(e -> !e.awaitingInput())
                      .map(
                          e ->
                              store
                                  .transition(
                                      Transition.to(
                                              e, ExecutionState.OUTCOME_UNKNOWN, clock.instant())
                                          .clearingLease())
                                  .toCompletableFuture()
                                  .exceptionally(err -> null))
                      .toArray(CompletableFuture[]::new);
              return CompletableFuture.allOf(all).thenApply(v -> all.length);
            });
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
