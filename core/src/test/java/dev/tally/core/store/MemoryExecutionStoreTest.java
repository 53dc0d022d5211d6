package dev.tally.core.store;

import static dev.tally.core.testing.Stages.await;
import static dev.tally.core.testing.Stages.failure;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.execution.MatchKind;
import dev.tally.core.execution.Transition;
import dev.tally.core.testing.MutableClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class MemoryExecutionStoreTest extends ExecutionStoreContract {
  private static final long SMALL = 64 * 1024;

  @Override
  protected ExecutionStore createStore(MutableClock clock) {
    return MemoryExecutionStore.create(MemoryStoreOptions.defaults().withMaxResultBytes(4096));
  }

  private MemoryExecutionStore small(long maxWeightBytes) {
    store.close();
    store =
        MemoryExecutionStore.create(
            MemoryStoreOptions.defaults()
                .withMaxWeightBytes(maxWeightBytes)
                .withMaxResultBytes(1024));
    return (MemoryExecutionStore) store;
  }

  @Test
  void evictionDropsOnlyRecordsThatReleasedTheirKey() {
    MemoryExecutionStore memory = small(SMALL);
    Duration day = Duration.ofDays(1);
    List<Execution> pinned = new ArrayList<>();
    pinned.add(claimed(candidate().holdFor(day)));
    pinned.add(reach(ExecutionState.AUTHORIZED, candidate().holdFor(day)));
    pinned.add(reach(ExecutionState.PENDING_CONFIRMATION, candidate().holdFor(day)));
    pinned.add(dispatched(candidate().holdFor(day), Duration.ofSeconds(30)));
    pinned.add(reach(ExecutionState.OUTCOME_UNKNOWN, candidate().holdFor(day)));
    pinned.add(reach(ExecutionState.COMPLETED, candidate().holdFor(day)));
    pinned.add(reach(ExecutionState.COMPLETED_NOT_DELIVERED, candidate().holdFor(day)));
    pinned.add(reach(ExecutionState.DELIVERED, candidate().holdFor(day)));
    pinned.add(reach(ExecutionState.REJECTED, candidate().holdFor(day)));
    pinned.add(
        reach(
            ExecutionState.COMPLETED_NOT_DELIVERED,
            candidate().kind(MatchKind.FINGERPRINT).holdFor(day)));

    List<Execution> released = new ArrayList<>();
    for (int i = 0; i < 150; i++) {
      released.add(reach(ExecutionState.FAILED, candidate()));
      released.add(reach(ExecutionState.DELIVERED, candidate().kind(MatchKind.FINGERPRINT)));
    }

    for (Execution e : pinned) {
      assertThat(await(store.find(e.id()))).as("%s", e.state()).isPresent();
      assertThat(await(store.findHolder(e.matchKey(), clock.instant())))
          .as("%s", e.state())
          .isPresent();
    }
    long evicted = released.stream().filter(e -> await(store.find(e.id())).isEmpty()).count();
    assertThat(evicted).isGreaterThan(released.size() / 2);
    MemoryExecutionStore.Usage usage = memory.usage();
    assertThat(usage.pinnedBytes()).isPositive();
    assertThat(usage.pinnedBytes() + usage.evictableBytes())
        .isLessThanOrEqualTo(SMALL + SMALL / 64);
    Page page = await(store.list(new ExecutionQuery(null, null, null, null, 500)));
    assertThat(page.items()).hasSize((int) (pinned.size() + released.size() - evicted));
    assertThat(usage.executions()).isEqualTo(pinned.size() + released.size() - evicted);
  }

  @Test
  void newClaimsFailClosedWhenPinnedRecordsFillTheBound() {
    MemoryExecutionStore memory = small(16 * 1024);
    List<Execution> live = new ArrayList<>();
    StoreException refused = null;
    for (int i = 0; i < 1000 && refused == null; i++) {
      Execution candidate = candidate().build();
      Throwable t = null;
      try {
        live.add(await(store.claim(candidate, clock.instant())).execution());
      } catch (StoreException e) {
        t = e;
      }
      if (t != null) {
        refused = (StoreException) t;
        assertThat(await(store.find(candidate.id()))).isEmpty();
        assertThat(await(store.findHolder(candidate.matchKey(), clock.instant()))).isEmpty();
      }
    }

    assertThat(refused).isNotNull();
    assertThat(refused.code()).isEqualTo(StoreException.Code.UNAVAILABLE);
    assertThat(refused.code().retryable()).isTrue();
    assertThat(refused.getMessage()).contains("maxWeightBytes=16384");
    assertThat(memory.isWritable()).isFalse();
    assertThat(live).hasSizeGreaterThan(5);
    for (Execution e : live) {
      assertThat(await(store.find(e.id()))).contains(e);
    }

    Execution moved = move(live.get(0), ExecutionState.AUTHORIZED);
    assertThat(moved.version()).isEqualTo(2);
    for (Execution e : live.subList(1, 4)) {
      move(e, ExecutionState.FAILED);
    }
    assertThat(memory.isWritable()).isTrue();
    claimed(candidate());
  }

  @Test
  void pinnedRecordsWhoseHoldRanOutLeaveByPurge() {
    MemoryExecutionStore memory = small(SMALL);
    Execution delivered =
        reach(
            ExecutionState.DELIVERED,
            candidate().holdFor(Duration.ofMinutes(1)).retainFor(Duration.ofMinutes(1)));
    long pinnedBefore = memory.usage().pinnedBytes();
    assertThat(pinnedBefore).isPositive();

    clock.advance(Duration.ofMinutes(2));
    assertThat(await(store.purge(clock.instant(), 10))).isEqualTo(1);

    assertThat(await(store.find(delivered.id()))).isEmpty();
    assertThat(memory.usage().pinnedBytes()).isZero();
  }

  @Test
  void resultBytesCountTowardsTheBound() {
    MemoryExecutionStore memory = small(SMALL);
    Execution dispatched = dispatched(candidate(), Duration.ofSeconds(30));
    long before = memory.usage().pinnedBytes();

    await(
        store.transition(
            Transition.to(dispatched, ExecutionState.COMPLETED, clock.instant())
                .withResult(new byte[1000], false)));

    assertThat(memory.usage().pinnedBytes() - before).isGreaterThanOrEqualTo(1000);
  }

  @Test
  void resultBytesAreCopiedInAndOut() {
    Execution dispatched = dispatched(candidate(), Duration.ofSeconds(30));
    byte[] result = {'{', '}'};
    await(
        store.transition(
            Transition.to(dispatched, ExecutionState.COMPLETED, clock.instant())
                .withResult(result, false)));
    result[0] = 'x';
    byte[] read = await(store.result(dispatched.id())).orElseThrow();
    read[1] = 'y';

    assertThat(await(store.result(dispatched.id())))
        .hasValueSatisfying(b -> assertThat(b).containsExactly('{', '}'));
  }

  @Test
  void closeFailsPendingWaitsWithClosed() {
    Execution e = claimed(candidate());
    CompletableFuture<Optional<Execution>> change =
        store.awaitChange(e.id(), e.version(), Duration.ofMinutes(5)).toCompletableFuture();

    store.close();

    assertThat(change).isCompletedExceptionally();
    assertThatThrownBy(() -> change.get(1, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOf(StoreException.class)
        .extracting(t -> ((StoreException) t).code())
        .isEqualTo(StoreException.Code.CLOSED);
  }

  @Test
  void invalidArgumentsFailTheStageWithoutChangingAnything() {
    Execution e = claimed(candidate());
    assertThat(failure(store.lapsed(clock.instant(), -1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("limit: -1 (expected: zero or more)");
    assertThat(failure(store.claim(null, clock.instant())))
        .isInstanceOf(NullPointerException.class);
    assertThat(await(store.find(e.id()))).contains(e);
  }

  @Test
  void optionsNameTheBadValue() {
    assertThatThrownBy(() -> MemoryStoreOptions.defaults().withMaxWeightBytes(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxWeightBytes: 0 (expected: a positive number of bytes)");
    assertThatThrownBy(() -> MemoryStoreOptions.defaults().withMaxResultBytes(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxResultBytes: -1 (expected: zero or more bytes)");
    assertThat(MemoryStoreOptions.defaults())
        .isEqualTo(new MemoryStoreOptions(256L * 1024 * 1024, 1024 * 1024));
  }
}
