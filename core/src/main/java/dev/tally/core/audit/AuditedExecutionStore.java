package dev.tally.core.audit;

import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.execution.Lease;
import dev.tally.core.execution.Transition;
import dev.tally.core.store.Claim;
import dev.tally.core.store.ExecutionStore;
import dev.tally.core.store.ForwardingExecutionStore;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * An {@link ExecutionStore} that reports every stored change to an {@link AuditSink}: one place
 * sees every transition, whoever makes it (gate, reaper, operator, recovery). The predecessor of a
 * transition is read first so the entry names the state it left; only a successful change is
 * reported.
 */
public final class AuditedExecutionStore extends ForwardingExecutionStore {
  private final ExecutionStore delegate;
  private final AuditSink sink;

  private AuditedExecutionStore(ExecutionStore delegate, AuditSink sink) {
    super(delegate);
    this.delegate = delegate;
    this.sink = sink;
  }

  /** Wraps {@code delegate}; closing the wrapper closes the delegate, not the sink. */
  public static ExecutionStore wrap(ExecutionStore delegate, AuditSink sink) {
    return new AuditedExecutionStore(delegate, sink);
  }

  @Override
  public CompletionStage<Claim> claim(Execution candidate, Instant now) {
    return delegate
        .claim(candidate, now)
        .thenApply(
            c -> {
              if (c instanceof Claim.Won w) {
                sink.transition(null, w.execution());
              }
              return c;
            });
  }

  @Override
  public CompletionStage<Execution> transition(Transition t) {
    return delegate
        .find(t.id())
        .thenCompose(
            before ->
                delegate
                    .transition(t)
                    .thenApply(
                        after -> {
                          sink.transition(predecessor(before, t.expectedVersion()), after);
                          return after;
                        }));
  }

  @Override
  public CompletionStage<Execution> touch(
      ExecutionId id, long expectedVersion, Lease lease, boolean awaitingInput) {
    return delegate
        .find(id)
        .thenCompose(
            before ->
                delegate
                    .touch(id, expectedVersion, lease, awaitingInput)
                    .thenApply(
                        after -> {
                          sink.transition(predecessor(before, expectedVersion), after);
                          return after;
                        }));
  }

  private static Execution predecessor(Optional<Execution> before, long version) {
    return before.filter(b -> b.version() == version).orElse(null);
  }
}
