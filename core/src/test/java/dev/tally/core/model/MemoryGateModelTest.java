package dev.tally.core.model;

import dev.tally.core.store.ExecutionStore;
import dev.tally.core.store.MemoryExecutionStore;
import dev.tally.core.store.MemoryStoreOptions;
import dev.tally.core.testing.MutableClock;

/**
 * The gate model on the memory store. It keeps nothing across a restart, so a crash here is the
 * gate's process restarting beside a store that stays (as another replica would see it).
 */
class MemoryGateModelTest extends GateModelSuite {
  @Override
  protected ModelStores stores() {
    return memoryStores();
  }

  static ModelStores memoryStores() {
    return new ModelStores() {
      @Override
      public ExecutionStore open(MutableClock clock) {
        return MemoryExecutionStore.create(
            MemoryStoreOptions.defaults().withMaxResultBytes(World.MAX_RESULT_BYTES));
      }
    };
  }

  @Override
  protected String storeName() {
    return "memory";
  }
}
