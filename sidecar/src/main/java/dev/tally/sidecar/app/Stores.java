package dev.tally.sidecar.app;

import dev.tally.core.config.StoreConfig;
import dev.tally.core.store.ExecutionStore;
import dev.tally.core.store.MemoryExecutionStore;
import dev.tally.core.store.MemoryStoreOptions;
import dev.tally.core.store.journal.JournalExecutionStore;
import dev.tally.core.store.journal.JournalOptions;
import dev.tally.store.postgres.PostgresExecutionStore;
import java.time.Clock;

/** Opens the execution store a {@link StoreConfig} names. */
public final class Stores {
  /** How long start-up waits for PostgreSQL (connect and migrate). */
  static final java.time.Duration OPEN_TIMEOUT = java.time.Duration.ofSeconds(60);

  private Stores() {}

  /**
   * Opens the store; throws the store's own exception (with a clear message, never a password) when
   * it cannot start, e.g. a locked journal or an unreachable database.
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
          PostgresExecutionStore.openBlocking(config.uri(), maxResultBytes, OPEN_TIMEOUT);
    };
  }
}
