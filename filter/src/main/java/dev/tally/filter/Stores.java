package dev.tally.filter;

import dev.tally.core.store.ExecutionStore;
import dev.tally.core.store.MemoryExecutionStore;

/** Opens the store named by {@code store.kind}. */
final class Stores {
  private Stores() {}

  static ExecutionStore open(FilterSettings s) {
    return switch (s.storeKind()) {
      case "memory" -> MemoryExecutionStore.create();
      default ->
          throw new IllegalArgumentException(
              FilterSettings.KEY_STORE_KIND
                  + ": "
                  + s.storeKind()
                  + " (not available in this build; expected: memory, or give"
                  + " TallyFilter.builder() a store)");
    };
  }
}
