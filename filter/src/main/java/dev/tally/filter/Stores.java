package dev.tally.filter;

import dev.tally.core.audit.AuditRepair;
import dev.tally.core.config.StoreConfig;
import dev.tally.core.config.TallyConfig;
import dev.tally.core.store.ExecutionStore;
import dev.tally.core.store.MemoryExecutionStore;
import dev.tally.core.store.MemoryStoreOptions;
import dev.tally.core.store.journal.JournalExecutionStore;
import dev.tally.core.store.journal.JournalOptions;
import java.time.Clock;

/** Opens the store named by the {@code store} key. */
final class Stores {
  private Stores() {}

  /**
   * Opens the store; {@code repair} (or null) gets the audit riders a journal store still holds
   * (see {@link dev.tally.core.audit.AuditTrail#repair}).
   */
  static ExecutionStore open(TallyConfig config, Clock clock, AuditRepair repair) {
    StoreConfig s = config.store();
    int maxResult = config.limits().maxResultBytes();
    return switch (s.kind()) {
      case MEMORY ->
          MemoryExecutionStore.create(MemoryStoreOptions.defaults().withMaxResultBytes(maxResult));
      case JOURNAL -> {
        JournalOptions options =
            JournalOptions.defaults(s.journalDir()).withMaxResultBytes(maxResult).withClock(clock);
        yield repair == null
            ? JournalExecutionStore.open(options)
            : JournalExecutionStore.open(options, repair);
      }
      case POSTGRES ->
          throw new IllegalArgumentException(
              "store: "
                  + s.redacted()
                  + " (expected: memory or journal:DIR; for PostgreSQL give"
                  + " TallyFilter.builder() a store)");
    };
  }
}
