package dev.tally.core.runtime;

import dev.tally.core.config.StoreConfig;
import dev.tally.core.store.ExecutionStore;
import dev.tally.core.store.MemoryExecutionStore;
import dev.tally.core.store.MemoryStoreOptions;

/** The memory store ({@code store: memory}), bounded by {@code memory.maxBytes}. */
public final class MemoryStoreProvider implements StoreProvider {
  @Override
  public StoreConfig.Kind kind() {
    return StoreConfig.Kind.MEMORY;
  }

  @Override
  public ExecutionStore open(Request request) {
    return MemoryExecutionStore.create(
        MemoryStoreOptions.defaults()
            .withMaxResultBytes(request.config().limits().maxResultBytes())
            .withMaxWeightBytes(request.config().storage().memoryMaxBytes()));
  }
}
