package dev.tally.core.model;

import static dev.tally.core.testing.Stages.await;

import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.store.ExecutionStore;
import dev.tally.core.testing.MutableClock;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * The durability invariant: the store under test (read directly, below every fault) holds each
 * execution as the model has it, which is what its clients were told: its state, its hold on the
 * intent, and the result bytes it answered with. One exception, made explicit by the model ({@link
 * ReferenceModel#unrecorded}): an answer the store refused to record (it was down) still reaches
 * the client, as the pipeline chooses, and the record stays {@code dispatched} until its lease
 * lapses.
 */
final class StoredState {
  private static final long SETTLE_WAIT_NANOS = 10_000_000_000L;

  private final Supplier<ExecutionStore> store;
  private final MutableClock clock;

  StoredState(Supplier<ExecutionStore> store, MutableClock clock) {
    this.store = store;
    this.clock = clock;
  }

  /**
   * Waits (bounded) until the store shows {@code e} as the model has it: the pipeline records some
   * outcomes without handing out the stage, and the next op must see them.
   */
  void awaitStored(ReferenceModel.Exec e) {
    if (mayBePurged(e)) {
      return;
    }
    long deadline = System.nanoTime() + SETTLE_WAIT_NANOS;
    while (true) {
      Optional<Execution> stored = await(store.get().find(ExecutionId.parse(e.id)));
      if (stored.isPresent() && stored.get().state() == e.state) {
        checkDurable(e, stored.get());
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new Violation(
            "durable",
            e.id
                + " is "
                + stored.map(s -> s.state().wireName()).orElse("missing")
                + " in the store; the model (and what its client was told) says "
                + e.state.wireName());
      }
      LockSupport.parkNanos(200_000);
    }
  }

  void checkDurable(ReferenceModel.Exec e) {
    if (mayBePurged(e)) {
      return;
    }
    Optional<Execution> stored = await(store.get().find(ExecutionId.parse(e.id)));
    if (stored.isEmpty() || stored.get().state() != e.state) {
      throw new Violation(
          "durable",
          e.id
              + " is "
              + stored.map(s -> s.state().wireName()).orElse("missing")
              + " in the store; the model (and what its client was told) says "
              + e.state.wireName());
    }
    checkDurable(e, stored.get());
  }

  /** Past its retention a record may be purged by any lease round: nothing to check then. */
  private boolean mayBePurged(ReferenceModel.Exec e) {
    return !clock.instant().isBefore(e.accepted.plus(World.RETENTION));
  }

  private void checkDurable(ReferenceModel.Exec e, Execution stored) {
    if (!stored.holdUntil().equals(e.holdUntil)) {
      throw new Violation(
          "durable",
          e.id
              + " holds its intent until "
              + stored.holdUntil()
              + "; the rules say "
              + e.holdUntil);
    }
    if (!e.state.hasResult() || e.result == null || !e.retained) {
      return;
    }
    Optional<byte[]> bytes = await(store.get().result(stored.id()));
    if (bytes.isEmpty() || !Arrays.equals(bytes.get(), e.result)) {
      throw new Violation(
          "durable",
          e.id + " is " + e.state.wireName() + " but its stored result is not what was answered");
    }
  }
}
