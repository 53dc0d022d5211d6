package dev.tally.filter;

import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.store.ExecutionStore;
import dev.tally.core.store.ForwardingExecutionStore;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Semaphore;

/**
 * A store that lets a test see when retries have attached (each attach waits with {@link
 * #awaitChange}), so concurrency tests synchronize on events, not on time.
 */
final class WatchedStore extends ForwardingExecutionStore {
  final Semaphore waits = new Semaphore(0);

  WatchedStore(ExecutionStore delegate) {
    super(delegate);
  }

  @Override
  public CompletionStage<Optional<Execution>> awaitChange(
      ExecutionId id, long afterVersion, Duration maxWait) {
    CompletionStage<Optional<Execution>> s = delegate().awaitChange(id, afterVersion, maxWait);
    waits.release();
    return s;
  }
}
