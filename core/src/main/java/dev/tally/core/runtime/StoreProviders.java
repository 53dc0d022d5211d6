package dev.tally.core.runtime;

import dev.tally.core.config.ConfigException;
import dev.tally.core.config.StoreConfig;
import dev.tally.core.store.ExecutionStore;
import java.util.List;
import java.util.ServiceLoader;

/** Finds the {@link StoreProvider} for a configured store and opens it. */
public final class StoreProviders {
  private StoreProviders() {}

  /**
   * Opens the store of {@code request.config().store()}.
   *
   * @throws ConfigException naming {@code store} when no provider on the class path opens its kind
   */
  public static ExecutionStore open(StoreProvider.Request request) {
    StoreConfig store = request.config().store();
    ClassLoader loader = StoreProviders.class.getClassLoader();
    for (StoreProvider p : ServiceLoader.load(StoreProvider.class, loader)) {
      if (p.kind() == store.kind()) {
        return p.open(request);
      }
    }
    throw new ConfigException(
        "configuration",
        List.of(
            "store: "
                + store.redacted()
                + " (expected: a store whose module is on the class path; PostgreSQL needs"
                + " dev.tally:tally-store-postgres)"));
  }
}
