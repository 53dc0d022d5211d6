package dev.tally.core.gate;

import dev.tally.core.store.ExecutionStore;
import dev.tally.core.store.MemoryExecutionStore;
import dev.tally.core.testing.MutableClock;
import java.time.Instant;

/** Shared set-up of gate tests. */
final class GateFixtures {
  private GateFixtures() {}

  static MutableClock clock() {
    return MutableClock.at(Instant.parse("2026-11-30T12:00:00Z"));
  }

  static ExecutionStore memoryStore(MutableClock clock) {
    return MemoryExecutionStore.create();
  }
}
