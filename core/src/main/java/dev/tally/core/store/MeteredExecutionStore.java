package dev.tally.core.store;

import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.execution.Lease;
import dev.tally.core.execution.Transition;
import dev.tally.core.observe.CallLog;
import dev.tally.core.observe.Meter;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An {@link ExecutionStore} that times every operation of its delegate into {@link
 * Meter#storeOperation} and counts each state an execution enters ({@link Meter#state}): the
 * store's latency and the executions by state, the same for every store kind. Adds nothing else.
 */
public final class MeteredExecutionStore implements ExecutionStore {
  private final ExecutionStore delegate;
  private final Meter meter;
  private final AtomicBoolean down = new AtomicBoolean();

  private MeteredExecutionStore(ExecutionStore delegate, Meter meter) {
    this.delegate = delegate;
    this.meter = meter;
  }

  /** {@code store} timed into {@code meter} (which may be {@link Meter#NONE}). */
  public static ExecutionStore wrap(ExecutionStore store, Meter meter) {
    return new MeteredExecutionStore(store, meter);
  }

  public ExecutionStore delegate() {
    return delegate;
  }

  @Override
  public CompletionStage<Claim> claim(Execution candidate, Instant now) {
    long t0 = System.nanoTime();
    return delegate
        .claim(candidate, now)
        .whenComplete(
            (c, err) -> {
              done("claim", t0, err);
              if (c instanceof Claim.Won w) {
                entered(w.execution());
              }
            });
  }

  @Override
  public CompletionStage<Optional<Execution>> find(ExecutionId id) {
    long t0 = System.nanoTime();
    return delegate.find(id).whenComplete((r, err) -> done("find", t0, err));
  }

  @Override
  public CompletionStage<Optional<Execution>> findHolder(String matchKey, Instant now) {
    long t0 = System.nanoTime();
    return delegate.findHolder(matchKey, now).whenComplete((r, err) -> done("find", t0, err));
  }

  @Override
  public CompletionStage<Execution> transition(Transition t) {
    long t0 = System.nanoTime();
    return delegate
        .transition(t)
        .whenComplete(
            (e, err) -> {
              done("transition", t0, err);
              if (e != null) {
                entered(e);
              }
            });
  }

  @Override
  public CompletionStage<Execution> touch(
      ExecutionId id, long expectedVersion, Lease lease, boolean awaitingInput) {
    long t0 = System.nanoTime();
    return delegate
        .touch(id, expectedVersion, lease, awaitingInput)
        .whenComplete((r, err) -> done("touch", t0, err));
  }

  @Override
  public CompletionStage<Optional<byte[]>> result(ExecutionId id) {
    long t0 = System.nanoTime();
    return delegate.result(id).whenComplete((r, err) -> done("result", t0, err));
  }

  @Override
  public CompletionStage<Optional<Execution>> awaitChange(
      ExecutionId id, long afterVersion, Duration maxWait) {
    return delegate.awaitChange(id, afterVersion, maxWait); // a wait, not a latency
  }

  @Override
  public CompletionStage<List<Execution>> lapsed(Instant now, int limit) {
    long t0 = System.nanoTime();
    return delegate.lapsed(now, limit).whenComplete((r, err) -> done("lapsed", t0, err));
  }

  @Override
  public CompletionStage<Page> list(ExecutionQuery query) {
    long t0 = System.nanoTime();
    return delegate.list(query).whenComplete((r, err) -> done("list", t0, err));
  }

  @Override
  public CompletionStage<Integer> purge(Instant now, int limit) {
    long t0 = System.nanoTime();
    return delegate.purge(now, limit).whenComplete((r, err) -> done("purge", t0, err));
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
  public void metrics(Meter m) {
    delegate.metrics(m);
  }

  @Override
  public void close() {
    delegate.close();
  }

  private void done(String op, long t0, Throwable err) {
    meter.storeOperation(op, System.nanoTime() - t0, err != null);
    Throwable t =
        err instanceof CompletionException && err.getCause() != null ? err.getCause() : err;
    if (t instanceof StoreException se && se.code() == StoreException.Code.UNAVAILABLE) {
      if (down.compareAndSet(false, true)) {
        CallLog.storeUnavailable(op, se.code().name());
      }
    } else if (err == null && down.compareAndSet(true, false)) {
      CallLog.storeAvailable();
    }
  }

  private void entered(Execution e) {
    meter.state(e.state().wireName(), e.tool());
  }
}
