package dev.tally.sidecar.app;

import dev.tally.core.config.ConfigException;
import dev.tally.core.config.StoreConfig;
import dev.tally.core.store.ExecutionStore;
import dev.tally.core.store.MemoryExecutionStore;
import dev.tally.core.store.MemoryStoreOptions;
import dev.tally.core.store.journal.JournalExecutionStore;
import dev.tally.core.store.journal.JournalOptions;
import java.time.Clock;
import java.util.List;

/** Opens the execution store a {@link StoreConfig} names. */
public final class Stores {
  private Stores() {}

  /**
   * Opens the store; throws {@link ConfigException} for a store this build cannot open, and the
   * store's own exception (with a clear message) when it cannot start, e.g. a locked journal.
   */
  public static ExecutionStore open(StoreConfig config, int maxResultBytes, Clock clock) {
    return switch (config.kind()) {
      case MEMORY ->
          MemoryExecutionStore.create(
              MemoryStoreOptions.defaults().withMaxResultBytes(maxResultBytes));
      case JOURNAL -> {
        JournalOptions d = JournalOptions.defaults(config.journalDir());
        yield JournalExecutionStore.open(
            new JournalOptions(
                d.dir(),
                maxResultBytes,
                clock,
                d.compactMinBytes(),
                d.compactRatio(),
                d.maxGroupRecords(),
                d.maxGroupBytes(),
                d.maxGroupDelay()));
      }
      case POSTGRES ->
          throw new ConfigException(
              "configuration",
              List.of(
                  "store: "
                      + config.redacted()
                      + " (expected: memory or journal:DIR; the PostgreSQL store is not part of"
                      + " this build yet)"));
    };
  }
}
