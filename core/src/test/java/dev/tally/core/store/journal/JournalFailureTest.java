package dev.tally.core.store.journal;

import static dev.tally.core.store.journal.JournalFixture.claim;
import static dev.tally.core.testing.Stages.await;
import static dev.tally.core.testing.Stages.storeCode;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.execution.Transition;
import dev.tally.core.store.Claim;
import dev.tally.core.store.StoreException;
import dev.tally.core.testing.Executions;
import dev.tally.core.testing.MutableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A failing disk: nothing is reported durable that is not, and the store fails closed. */
class JournalFailureTest {
  @TempDir Path dir;
  private final MutableClock clock = MutableClock.create();
  private final FaultyDisk disk = new FaultyDisk();
  private JournalExecutionStore store;

  @AfterEach
  void tearDown() {
    disk.release();
    if (store != null) {
      store.close();
    }
  }

  /**
   * Without preallocation: the allocator thread would also meet the failing disk and add its own
   * warning at a moment that depends on timing.
   */
  private JournalExecutionStore open(ChannelFactory channels) {
    return JournalExecutionStore.open(
        JournalOptions.defaults(dir).withClock(clock).withPreallocation(0),
        channels,
        Compactor.Hooks.NONE);
  }

  @Test
  void failedWriteFailsTheStageAndTheStoreRefusesWritesUntilReopened() {
    store = open(disk);
    Execution durable = claim(store, clock);
    disk.failWrites.set(true);
    Execution lost = Executions.candidate(clock).build();

    try (LogCapture logs = LogCapture.start()) {
      assertThat(storeCode(store.claim(lost, clock.instant())))
          .isEqualTo(StoreException.Code.UNAVAILABLE);
      assertThat(logs.warnings())
          .singleElement()
          .asString()
          .contains("journal write to")
          .contains("simulated write failure");
    }
    assertThat(store.isWritable()).isFalse();
    assertThat(
            storeCode(
                store.transition(
                    Transition.to(durable, ExecutionState.AUTHORIZED, clock.instant()))))
        .isEqualTo(StoreException.Code.UNAVAILABLE);
    assertThat(storeCode(store.claim(Executions.candidate(clock).build(), clock.instant())))
        .isEqualTo(StoreException.Code.UNAVAILABLE);
    // What is durable stays readable; what is not is never handed out.
    assertThat(await(store.find(durable.id()))).contains(durable);
    assertThat(storeCode(store.find(lost.id()))).isEqualTo(StoreException.Code.UNAVAILABLE);
    assertThat(storeCode(store.findHolder(lost.matchKey(), clock.instant())))
        .isEqualTo(StoreException.Code.UNAVAILABLE);
    Execution retry = Executions.candidate(clock).matchKey(lost.matchKey()).build();
    assertThat(storeCode(store.claim(retry, clock.instant())))
        .isEqualTo(StoreException.Code.UNAVAILABLE);

    store.halt();
    store = open(ChannelFactory.DEFAULT);
    assertThat(store.isWritable()).isTrue();
    assertThat(await(store.find(durable.id()))).contains(durable);
    assertThat(await(store.find(lost.id()))).isEmpty();
    assertThat(await(store.claim(retry, clock.instant()))).isInstanceOf(Claim.Won.class);
  }

  @Test
  void failedFsyncFailsTheStageAndEveryOneQueuedBehindIt() throws Exception {
    store = open(disk);
    Execution first = claim(store, clock);
    disk.holdNextForce();
    CompletableFuture<Execution> held =
        store
            .transition(Transition.to(first, ExecutionState.AUTHORIZED, clock.instant()))
            .toCompletableFuture();
    disk.awaitHolding();
    CompletableFuture<Claim> queued =
        store.claim(Executions.candidate(clock).build(), clock.instant()).toCompletableFuture();
    disk.failForce.set(true);
    disk.release();

    assertThat(storeCode(held)).isEqualTo(StoreException.Code.UNAVAILABLE);
    assertThat(storeCode(queued)).isEqualTo(StoreException.Code.UNAVAILABLE);
    assertThat(store.isWritable()).isFalse();
    assertThat(storeCode(store.find(first.id()))).isEqualTo(StoreException.Code.UNAVAILABLE);
  }

  @Test
  void aWaiterNeverSeesAChangeThatDidNotBecomeDurable() {
    store = open(disk);
    Execution e = claim(store, clock);
    CompletableFuture<?> change =
        store.awaitChange(e.id(), e.version(), Duration.ofMinutes(1)).toCompletableFuture();
    disk.failWrites.set(true);

    assertThat(
            storeCode(store.transition(Transition.to(e, ExecutionState.REJECTED, clock.instant()))))
        .isEqualTo(StoreException.Code.UNAVAILABLE);
    assertThat(storeCode(change)).isEqualTo(StoreException.Code.UNAVAILABLE);
  }
}
