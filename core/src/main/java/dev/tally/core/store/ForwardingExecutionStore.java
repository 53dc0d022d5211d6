package dev.tally.core.store;

import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.execution.Lease;
import dev.tally.core.execution.Transition;
import dev.tally.core.observe.Meter;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * An {@link ExecutionStore} that forwards every call to another; decorators (auditing, test probes)
 * override only what they add to.
 */
public abstract class ForwardingExecutionStore implements ExecutionStore {
  private final ExecutionStore delegate;

  protected ForwardingExecutionStore(ExecutionStore delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  /** The wrapped store. */
  public ExecutionStore delegate() {
    return delegate;
  }

  @Override
  public CompletionStage<Claim> claim(Execution candidate, Instant now) {
    return delegate.claim(candidate, now);
  }

  @Override
  public CompletionStage<Optional<Execution>> find(ExecutionId id) {
    return delegate.find(id);
  }

  @Override
  public CompletionStage<Optional<Execution>> findHolder(String matchKey, Instant now) {
    return delegate.findHolder(matchKey, now);
  }

  @Override
  public CompletionStage<Execution> transition(Transition t) {
    return delegate.transition(t);
  }

  @Override
  public CompletionStage<Execution> touch(
      ExecutionId id, long expectedVersion, Lease lease, boolean awaitingInput) {
    return delegate.touch(id, expectedVersion, lease, awaitingInput);
  }

  @Override
  public CompletionStage<Optional<byte[]>> result(ExecutionId id) {
    return delegate.result(id);
  }

  @Override
  public CompletionStage<Optional<Execution>> awaitChange(
      ExecutionId id, long afterVersion, Duration maxWait) {
    return delegate.awaitChange(id, afterVersion, maxWait);
  }

  @Override
  public CompletionStage<List<Execution>> lapsed(Instant now, int limit) {
    return delegate.lapsed(now, limit);
  }

  @Override
  public CompletionStage<Page> list(ExecutionQuery query) {
    return delegate.list(query);
  }

  @Override
  public CompletionStage<Integer> purge(Instant now, int limit) {
    return delegate.purge(now, limit);
  }

  @Override
  public int maxResultBytes() {
    return delegate.maxResultBytes();
  }

  @Override
  public boolean isWritable() {
    return delegate.isWritable();
  }

  @Override
  public void close() {
    delegate.close();
  }

  @Override
  public void metrics(Meter meter) {
    delegate.metrics(meter);
  }
}
