package dev.tally.core.gate;

import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.execution.Transition;
import dev.tally.core.store.ExecutionStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Keeps the leases of this instance's in-flight executions alive and turns dispatched executions
 * whose owner stopped heartbeating into {@code outcome_unknown} (ARCHITECTURE.md §5, last line).
 * One daemon thread; all store work is asynchronous.
 */
final class LeaseKeeper implements AutoCloseable {
  private static final int REAP_BATCH = 100;
  private static final int PURGE_BATCH = 500;

  /**
   * At most this many purge batches per purge round (120,000 records a minute at the default
   * heartbeat): one batch a round could not keep up with more than ~8 calls a second.
   */
  static final int MAX_PURGE_BATCHES = 240;

  /** Retention purges run every this many ticks (every minute at the default heartbeat). */
  private static final int PURGE_EVERY = 6;

  private final ExecutionStore store;
  private final Clock clock;
  private final Set<InFlightExecution> inFlight = ConcurrentHashMap.newKeySet();
  private final Set<Execution> unsent = ConcurrentHashMap.newKeySet();
  private final ScheduledExecutorService timer;
  private int ticks;
  private final AtomicBoolean purging = new AtomicBoolean();

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

  /**
   * A claim of {@code candidate} (this instance's, {@code dispatched} with its lease) whose write
   * failed in a way that leaves open whether it landed: nothing was sent for it. If the record
   * shows up as written, it is settled {@code failed} (nothing ran) rather than left to lapse into
   * {@code outcome_unknown}; tried at once and on every round until the record is found settled, or
   * its lease ends without it (then it never landed, or the reaper's rule applies).
   */
  void unsent(Execution candidate) {
    unsent.add(candidate);
    settleUnsent(candidate);
  }

  int unsentCount() {
    return unsent.size();
  }

  private CompletionStage<Void> settleUnsent(Execution candidate) {
    Instant now = clock.instant();
    return store
        .find(candidate.id())
        .thenCompose(
            found -> {
              if (found.isEmpty()) {
                if (candidate.leaseLapsed(now)) {
                  unsent.remove(candidate);
                }
                return CompletableFuture.<Void>completedFuture(null);
              }
              Execution e = found.get();
              if (e.version() != candidate.version()
                  || e.state() != ExecutionState.DISPATCHED
                  || e.lease() == null
                  || !e.lease().equals(candidate.lease())) {
                unsent.remove(candidate); // moved on: not ours to settle any more
                return CompletableFuture.<Void>completedFuture(null);
              }
              return store
                  .transition(
                      Transition.to(e, ExecutionState.FAILED, now)
                          .clearingLease()
                          .withOutcome(null, null))
                  .thenAccept(settled -> unsent.remove(candidate));
            })
        .exceptionally(err -> null) // the store is still failing: next round
        .toCompletableFuture();
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
      if (++ticks % PURGE_EVERY == 0 && purging.compareAndSet(false, true)) {
        // Not awaited: a long round must not hold up heartbeats, reaping or a drain.
        purgeRound(clock.instant()).whenComplete((n, err) -> purging.set(false));
      }
      CompletableFuture<?>[] pending =
          unsent.stream()
              .map(e -> settleUnsent(e).toCompletableFuture())
              .toArray(CompletableFuture[]::new);
      return CompletableFuture.allOf(pending).thenCompose(v -> reap());
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * Purges records past their retention in batches, each after the previous one completed, until a
   * batch comes back short or {@link #MAX_PURGE_BATCHES} ran; completes with how many went. The
   * batches run on this keeper's thread, not on the store's completion thread.
   */
  CompletionStage<Integer> purgeRound(Instant now) {
    try {
      return purgeBatches(now, MAX_PURGE_BATCHES, 0);
    } catch (RuntimeException e) {
      // A store that throws instead of failing its stage must not stop every later round.
      return CompletableFuture.failedFuture(e);
    }
  }

  private CompletionStage<Integer> purgeBatches(Instant now, int batchesLeft, int purged) {
    return store
        .purge(now, PURGE_BATCH)
        .thenComposeAsync(
            n ->
                n < PURGE_BATCH || batchesLeft <= 1
                    ? CompletableFuture.completedFuture(purged + n)
                    : purgeBatches(now, batchesLeft - 1, purged + n),
            timer);
  }

  /** Marks dispatched executions with lapsed leases (their owner is gone) as outcome_unknown. */
  CompletionStage<Integer> reap() {
    return store
        .lapsed(clock.instant(), REAP_BATCH)
        .thenCompose(
            (List<Execution> lapsed) -> {
              CompletableFuture<?>[] all =
                  lapsed.stream()
                      .filter(e -> !e.awaitingInput() && !isUnsent(e))
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

  private boolean isUnsent(Execution e) {
    for (Execution u : unsent) {
      if (u.id().equals(e.id())) {
        return true;
      }
    }
    return false;
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
