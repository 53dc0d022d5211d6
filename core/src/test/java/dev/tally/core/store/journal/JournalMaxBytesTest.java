package dev.tally.core.store.journal;

import static dev.tally.core.store.journal.JournalFixture.claim;
import static dev.tally.core.store.journal.JournalFixture.reach;
import static dev.tally.core.testing.Stages.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.store.StoreException;
import dev.tally.core.testing.Executions;
import dev.tally.core.testing.MutableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The journal store keeps every execution in memory until its retention ends; past {@code maxBytes}
 * it refuses new calls with a clear error instead of exhausting the heap, while the executions it
 * holds go on and nothing is dropped.
 */
class JournalMaxBytesTest {
  private static final long MAX_BYTES = 40_000;

  @TempDir Path dir;
  private final MutableClock clock = MutableClock.create();
  private JournalExecutionStore store;

  @AfterEach
  void tearDown() {
    if (store != null) {
      store.close();
    }
  }

  private JournalExecutionStore open(long maxBytes) {
    return JournalExecutionStore.open(
        JournalOptions.defaults(dir).withClock(clock).withMaxBytes(maxBytes));
  }

  private Executions.Builder shortLived() {
    return Executions.candidate(clock)
        .holdFor(Duration.ofMinutes(1))
        .retainFor(Duration.ofHours(1));
  }

  /** Claims until the store refuses; returns what it took and checks the refusal. */
  private List<Execution> fill() {
    List<Execution> held = new ArrayList<>();
    while (true) {
      try {
        held.add(claim(store, clock, shortLived()));
      } catch (StoreException e) {
        assertThat(e.code()).isEqualTo(StoreException.Code.UNAVAILABLE);
        assertThat(e)
            .hasMessageContaining("execution store full")
            .hasMessageContaining("maxBytes=" + MAX_BYTES);
        return held;
      }
      assertThat(held.size()).as("refused before 1,000 claims").isLessThan(1000);
    }
  }

  @Test
  void newCallsAreRefusedAtTheBoundWhileHeldExecutionsGoOn() {
    store = open(MAX_BYTES);
    assertThat(store.isWritable()).isTrue();
    List<Execution> held = fill();

    assertThat(held).hasSizeGreaterThan(3);
    assertThat(store.isWritable()).as("not ready while full").isFalse();
    JournalStats stats = store.stats();
    assertThat(stats.maxBytes()).isEqualTo(MAX_BYTES);
    assertThat(stats.executionBytes()).isPositive().isLessThanOrEqualTo(MAX_BYTES);
    assertThat(stats.executions()).isEqualTo(held.size());
    // An execution already held finishes, result included: a full store never strands one.
    Execution done = reach(store, clock, held.get(0), ExecutionState.DELIVERED);
    assertThat(await(store.find(done.id()))).contains(done);
    for (Execution e : held) {
      assertThat(await(store.find(e.id()))).isPresent();
    }
  }

  @Test
  void purgesAfterRetentionMakeRoomAgain() {
    store = open(MAX_BYTES);
    try (LogCapture log = LogCapture.start()) {
      List<Execution> held = fill();
      for (int i = 0; i < 5; i++) {
        assertThatThrownBy(() -> claim(store, clock, shortLived()))
            .isInstanceOf(StoreException.class);
      }
      // The operator learns it once, not once per refused call.
      assertThat(log.warnings())
          .filteredOn(w -> w.contains("execution store full"))
          .singleElement()
          .asString()
          .contains("maxBytes=" + MAX_BYTES);
      for (Execution e : held) {
        reach(store, clock, e, ExecutionState.DELIVERED);
      }
      clock.advance(Duration.ofHours(2));

      assertThat(await(store.purge(clock.instant(), 10_000))).isEqualTo(held.size());
      assertThat(store.isWritable()).isTrue();
      assertThat(store.stats().executionBytes()).isZero();
      assertThat(claim(store, clock, shortLived()).state()).isEqualTo(ExecutionState.ACCEPTED);
      assertThat(log.infos())
          .anySatisfy(l -> assertThat(l).contains("room again after refusing 6 new call(s)"));
    }
  }

  @Test
  void reopeningUnderASmallerBoundKeepsEveryExecutionAndRefusesNewOnes() {
    store = open(0);
    List<Execution> held = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      held.add(claim(store, clock, shortLived()));
    }
    assertThat(store.stats().maxBytes()).isZero();
    store.close();

    store = open(MAX_BYTES);
    for (Execution e : held) {
      assertThat(await(store.find(e.id()))).contains(e);
    }
    assertThat(store.isWritable()).isFalse();
    assertThatThrownBy(() -> claim(store, clock, shortLived()))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("execution store full");
  }

  @Test
  void aNegativeBoundIsRefusedNamingTheOption() {
    assertThatThrownBy(() -> JournalOptions.defaults(dir).withMaxBytes(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("store.journal.maxBytes: -1");
    assertThat(JournalOptions.defaults(dir).maxBytes())
        .isEqualTo(Runtime.getRuntime().maxMemory() / 2);
  }
}
