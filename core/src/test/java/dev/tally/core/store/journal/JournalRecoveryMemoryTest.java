package dev.tally.core.store.journal;

import static dev.tally.core.store.journal.JournalFixture.claim;
import static dev.tally.core.testing.Stages.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.execution.Lease;
import dev.tally.core.execution.Transition;
import dev.tally.core.testing.MutableClock;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A restart must fit in the heap the running store needed: the journal's recovered state and the
 * in-memory table share each result instead of holding it twice. (They did not: a sidecar whose
 * results filled half its heap ran fine, then failed every restart with OutOfMemoryError — found by
 * the kill-during-compaction crash test.)
 */
class JournalRecoveryMemoryTest {
  private static final int EXECUTIONS = 1000;
  private static final int RESULT_BYTES = 16 * 1024;

  @TempDir Path dir;

  @Test
  void aRestartHoldsEachResultOnceAsTheRunningStoreDid() {
    MutableClock clock = MutableClock.create();
    JournalOptions options = JournalOptions.defaults(dir).withClock(clock).withMaxBytes(0);
    long base = liveBytes();
    long running;
    JournalExecutionStore store = JournalExecutionStore.open(options);
    try {
      String text = "x".repeat(RESULT_BYTES);
      for (int i = 0; i < EXECUTIONS; i++) {
        complete(
            store, clock, ("{\"content\":[{\"type\":\"text\",\"text\":\"" + i + text + "\"}]}"));
      }
      running = liveBytes() - base;
    } finally {
      store.close();
    }
    store = null;
    long results = (long) EXECUTIONS * RESULT_BYTES;
    JournalExecutionStore reopened = JournalExecutionStore.open(options);
    try {
      long restarted = liveBytes() - base;
      assertThat(running).as("the running store holds the results").isGreaterThan(results);
      assertThat(restarted)
          .as(
              "heap after a restart (%d MB running, %d MB of results)",
              running >> 20, results >> 20)
          .isLessThan(running + results / 4);
    } finally {
      reopened.close();
    }
  }

  private static void complete(JournalExecutionStore store, MutableClock clock, String result) {
    Execution e = claim(store, clock);
    e = step(store, Transition.to(e, ExecutionState.AUTHORIZED, tick(clock)));
    e =
        step(
            store,
            Transition.to(e, ExecutionState.DISPATCHED, tick(clock))
                .withLease(new Lease("owner-a", clock.instant().plusSeconds(30))));
    e =
        step(
            store,
            Transition.to(e, ExecutionState.COMPLETED, tick(clock))
                .clearingLease()
                .withOutcome(200, null)
                .withResult(result.getBytes(StandardCharsets.UTF_8), false));
    step(store, Transition.to(e, ExecutionState.DELIVERED, tick(clock)));
  }

  private static Execution step(JournalExecutionStore store, Transition t) {
    return await(store.transition(t));
  }

  private static java.time.Instant tick(MutableClock clock) {
    return clock.advance(Duration.ofMillis(1));
  }

  /** Heap in use after full collections (explicit GC is honoured by the test JVM's collector). */
  private static long liveBytes() {
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }
}
