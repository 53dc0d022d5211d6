package dev.tally.sidecar.replicas;

import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.store.ExecutionStore;
import dev.tally.core.store.ForwardingExecutionStore;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts the waits the gate has open on a running execution: a retry that attached to a call
 * running elsewhere is waiting in {@link #awaitChange}, which lets a test release the upstream only
 * once every retry has really attached (rather than merely arrived).
 */
final class WaitCountingStore extends ForwardingExecutionStore {
  /** Waits in progress right now; each waiting retry has at most one. */
  final AtomicInteger waiting = new AtomicInteger();

  WaitCountingStore(ExecutionStore delegate) {
    super(delegate);
  }

  @Override
  public CompletionStage<Optional<Execution>> awaitChange(
      ExecutionId id, long afterVersion, Duration maxWait) {
    waiting.incrementAndGet();
    return super.awaitChange(id, afterVersion, maxWait)
        .whenComplete((latest, error) -> waiting.decrementAndGet());
  }
}
