package dev.tally.store.postgres;

import dev.tally.core.config.StoreConfig;
import dev.tally.core.runtime.StoreProvider;
import dev.tally.core.store.ExecutionStore;
import java.time.Duration;

/**
 * The PostgreSQL store ({@code store: postgres://…}) for {@link
 * dev.tally.core.runtime.TallyRuntime}: on the class path of any adapter, it makes {@code
 * postgres://} work there (the sidecar, the servlet filter's {@code store} init-param). The store
 * measures the database's clock against the system clock ({@link
 * PostgresStoreOptions#wallClock()}), never the request's clock, which a test may move by hand (see
 * {@link PostgresExecutionStore}, "Deadlines on one clock").
 */
public final class PostgresStoreProvider implements StoreProvider {
  /** How long start-up waits for PostgreSQL (connect and migrate). */
  static final Duration OPEN_TIMEOUT = Duration.ofSeconds(60);

  @Override
  public StoreConfig.Kind kind() {
    return StoreConfig.Kind.POSTGRES;
  }

  @Override
  public ExecutionStore open(Request request) {
    return PostgresExecutionStore.openBlocking(
        request.config().store().uri(), request.config().limits().maxResultBytes(), OPEN_TIMEOUT);
  }
}
