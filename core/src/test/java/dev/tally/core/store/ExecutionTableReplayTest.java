package dev.tally.core.store;

import dev.tally.core.store.internal.ExecutionTable;
import dev.tally.core.testing.MutableClock;

/**
 * The store contract, durability tests included, over a table that a "restart" rebuilds by
 * replaying every record of the old one through {@link ExecutionTable#restore} in hash order: the
 * recovery path the journal store takes after reading its snapshot.
 */
class ExecutionTableReplayTest extends ExecutionStoreContract {
  private static final MemoryStoreOptions OPTIONS =
      MemoryStoreOptions.defaults().withMaxResultBytes(4096);

  @Override
  protected ExecutionStore createStore(MutableClock clock) {
    return MemoryExecutionStore.over(OPTIONS, ExecutionTable.unbounded(OPTIONS.maxResultBytes()));
  }

  @Override
  protected ExecutionStore reopen(ExecutionStore store, MutableClock clock) {
    ExecutionTable old = ((MemoryExecutionStore) store).table();
    store.close();
    ExecutionTable rebuilt = ExecutionTable.unbounded(OPTIONS.maxResultBytes());
    old.forEach(s -> rebuilt.restore(s.execution(), s.result(), s.doc()));
    return MemoryExecutionStore.over(OPTIONS, rebuilt);
  }
}
