package dev.tally.core.model;

import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.store.ExecutionStore;
import dev.tally.core.store.ForwardingExecutionStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A store whose {@link #awaitChange} waits in model time, not in real time: a call that attached to
 * a running execution is parked until the run {@linkplain #releaseAll() releases} it, and then sees
 * the record as it stands. The run decides what happened meanwhile (the execution settled, or the
 * attach wait passed on its clock), so what an attached call gets never depends on thread timing.
 * Thread-safe.
 */
final class ParkedWaits extends ForwardingExecutionStore {
  private record Parked(ExecutionId id, CompletableFuture<Optional<Execution>> out) {}

  private final List<Parked> parked = new ArrayList<>();
  private int count;

  ParkedWaits(ExecutionStore next) {
    super(next);
  }

  @Override
  public CompletionStage<Optional<Execution>> awaitChange(
      ExecutionId id, long afterVersion, Duration maxWait) {
    CompletableFuture<Optional<Execution>> out = new CompletableFuture<>();
    synchronized (this) {
      parked.add(new Parked(id, out));
      count++;
      notifyAll();
    }
    return out;
  }

  /** How many calls parked so far, released or not. */
  synchronized int parkedSoFar() {
    return count;
  }

  /** Whether a call is parked now. */
  synchronized boolean anyParked() {
    return !parked.isEmpty();
  }

  /** Wakes every parked call with the record as it is now. */
  void releaseAll() {
    List<Parked> now;
    synchronized (this) {
      now = new ArrayList<>(parked);
      parked.clear();
    }
    for (Parked p : now) {
      find(p.id())
          .whenComplete(
              (e, err) -> {
                if (err != null) {
                  p.out().completeExceptionally(err);
                } else {
                  p.out().complete(e);
                }
              });
    }
  }
}
