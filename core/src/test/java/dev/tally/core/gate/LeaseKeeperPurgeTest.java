package dev.tally.core.gate;

import static dev.tally.core.testing.Stages.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.execution.Lease;
import dev.tally.core.execution.Transition;
import dev.tally.core.store.journal.JournalExecutionStore;
import dev.tally.core.store.journal.JournalOptions;
import dev.tally.core.testing.Executions;
import dev.tally.core.testing.MutableClock;
import dev.tally.core.testing.StatePaths;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Retention purges keep up with the calls: one purge round takes batch after batch until nothing
 * past its retention is left (one batch a minute could not keep up with ~8 calls a second, and the
 * journal store, which holds every execution in memory, then grows until it is full).
 */
class LeaseKeeperPurgeTest {
  @TempDir Path dir;
  private final MutableClock clock = MutableClock.create();

  private Execution finished(JournalExecutionStore store) {
    clock.advance(Duration.ofMillis(1));
    Execution e =
        await(
                store.claim(
                    Executions.candidate(clock)
                        .holdFor(Duration.ofMinutes(1))
                        .retainFor(Duration.ofHours(1))
                        .build(),
                    clock.instant()))
            .execution();
    for (ExecutionState s : StatePaths.pathTo(ExecutionState.DELIVERED)) {
      Transition t = Transition.to(e, s, clock.instant());
      if (s == ExecutionState.DISPATCHED) {
        t = t.withLease(new Lease("owner-a", clock.instant().plusSeconds(30)));
      }
      e = await(store.transition(t));
    }
    return e;
  }

  @Test
  void onePurgeRoundTakesEveryExpiredRecordInSeveralBatches() {
    int n = 1_300; // more than two batches of 500
    try (JournalExecutionStore store =
            JournalExecutionStore.open(JournalOptions.defaults(dir).withClock(clock));
        LeaseKeeper keeper = new LeaseKeeper(store, clock, Duration.ofHours(1))) {
      for (int i = 0; i < n; i++) {
        finished(store);
      }
      clock.advance(Duration.ofHours(2));
      Execution recent = finished(store);

      assertThat(await(keeper.purgeRound(clock.instant()))).isEqualTo(n);
      assertThat(store.stats().executions()).isEqualTo(1);
      assertThat(await(store.find(recent.id()))).contains(recent);
    }
  }
}
