package dev.tally.core.testing;

import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.execution.Lease;
import dev.tally.core.execution.Transition;
import dev.tally.core.store.Claim;
import dev.tally.core.store.ExecutionQuery;
import dev.tally.core.store.ExecutionStore;
import dev.tally.core.store.ForwardingExecutionStore;
import dev.tally.core.store.Page;
import dev.tally.core.store.StoreException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * A store in front of a real one that fails on command, as a store whose connection drops does:
 * while {@link #down} every operation fails before it reaches the store; {@link #loseClaimAnswers}
 * lets the next claims land and then fails their answer (the write committed, the caller never
 * learned it); {@link #failFinds} fails the next lookups by id. Thread-safe.
 */
public final class FaultyStore extends ForwardingExecutionStore {
  private volatile boolean down;
  private final AtomicInteger lostClaimAnswers = new AtomicInteger();
  private final AtomicInteger failedFinds = new AtomicInteger();

  public FaultyStore(ExecutionStore real) {
    super(real);
  }

  /** Every operation fails (unavailable) while {@code down}; nothing reaches the real store. */
  public void down(boolean down) {
    this.down = down;
  }

  /** The next {@code n} claims are written, and then their callers get a failure. */
  public void loseClaimAnswers(int n) {
    lostClaimAnswers.set(n);
  }

  /** The next {@code n} lookups by id fail. */
  public void failFinds(int n) {
    failedFinds.set(n);
  }

  private static <T> CompletionStage<T> unavailable(String why) {
    return CompletableFuture.failedFuture(
        new StoreException(StoreException.Code.UNAVAILABLE, why + " (injected)"));
  }

  private <T> CompletionStage<T> guard(Supplier<CompletionStage<T>> op) {
    return down ? unavailable("store down") : op.get();
  }

  private static boolean take(AtomicInteger counter) {
    return counter.getAndUpdate(n -> n > 0 ? n - 1 : 0) > 0;
  }

  @Override
  public CompletionStage<Claim> claim(Execution candidate, Instant now) {
    return guard(
        () ->
            super.claim(candidate, now)
                .thenCompose(
                    c ->
                        take(lostClaimAnswers)
                            ? FaultyStore.<Claim>unavailable("connection lost after commit")
                            : CompletableFuture.completedFuture(c)));
  }

  @Override
  public CompletionStage<Optional<Execution>> find(ExecutionId id) {
    return take(failedFinds) ? unavailable("lookup failed") : guard(() -> super.find(id));
  }

  @Override
  public CompletionStage<Optional<Execution>> findHolder(String matchKey, Instant now) {
    return guard(() -> super.findHolder(matchKey, now));
  }

  @Override
  public CompletionStage<Execution> transition(Transition t) {
    return guard(() -> super.transition(t));
  }

  @Override
  public CompletionStage<Execution> touch(
      ExecutionId id, long expectedVersion, Lease lease, boolean awaitingInput) {
    return guard(() -> super.touch(id, expectedVersion, lease, awaitingInput));
  }

  @Override
  public CompletionStage<Optional<byte[]>> result(ExecutionId id) {
    return guard(() -> super.result(id));
  }

  @Override
  public CompletionStage<Optional<Execution>> awaitChange(
      ExecutionId id, long afterVersion, Duration maxWait) {
    return guard(() -> super.awaitChange(id, afterVersion, maxWait));
  }

  @Override
  public CompletionStage<List<Execution>> lapsed(Instant now, int limit) {
    return guard(() -> super.lapsed(now, limit));
  }

  @Override
  public CompletionStage<Page> list(ExecutionQuery query) {
    return guard(() -> super.list(query));
  }

  @Override
  public CompletionStage<Integer> purge(Instant now, int limit) {
    return guard(() -> super.purge(now, limit));
  }

  @Override
  public boolean isWritable() {
    return !down && super.isWritable();
  }
}
