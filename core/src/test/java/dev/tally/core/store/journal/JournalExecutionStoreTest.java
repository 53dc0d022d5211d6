package dev.tally.core.store.journal;

import dev.tally.core.store.ExecutionStore;
import dev.tally.core.store.ExecutionStoreContract;
import dev.tally.core.testing.MutableClock;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The shared store contract, including durability across a close and reopen. */
class JournalExecutionStoreTest extends ExecutionStoreContract {
  @TempDir Path dir;

  @Override
  protected ExecutionStore createStore(MutableClock clock) {
    return JournalExecutionStore.open(
        JournalOptions.defaults(dir).withClock(clock).withMaxResultBytes(4096));
  }

  @Override
  protected ExecutionStore reopen(ExecutionStore store, MutableClock clock) {
    store.close();
    return createStore(clock);
  }
}
