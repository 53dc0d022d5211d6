package dev.tally.filter;

import dev.tally.core.store.ExecutionStore;
import java.time.Clock;

/** Opens the store named by {@code store.kind}. */
final class Stores {
  private Stores() {}

  static ExecutionStore open(FilterSettings s, Clock clock) {
    throw new IllegalStateException(
        FilterSettings.KEY_STORE_KIND
            + ": "
            + s.storeKind()
            + " (not available in this build: give TallyFilter.builder() a store)");
  }
}
