package dev.tally.core.runtime;

import dev.tally.core.config.StoreConfig;
import dev.tally.core.config.TallyConfig;
import dev.tally.core.store.ExecutionStore;
import dev.tally.core.store.journal.JournalExecutionStore;
import dev.tally.core.store.journal.JournalOptions;

/** The journal store ({@code store: journal:DIR}), tuned by the {@code journal} section. */
public final class JournalStoreProvider implements StoreProvider {
  @Override
  public StoreConfig.Kind kind() {
    return StoreConfig.Kind.JOURNAL;
  }

  @Override
  public ExecutionStore open(Request request) {
    TallyConfig c = request.config();
    JournalOptions options =
        c.storage()
            .journalOptions(c.store().journalDir())
            .withMaxResultBytes(c.limits().maxResultBytes())
            .withClock(request.clock());
    return request.riders() == null
        ? JournalExecutionStore.open(options)
        : JournalExecutionStore.open(options, request.riders());
  }
}
