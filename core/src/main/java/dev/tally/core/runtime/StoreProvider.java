package dev.tally.core.runtime;

import dev.tally.core.config.StoreConfig;
import dev.tally.core.config.TallyConfig;
import dev.tally.core.store.ExecutionStore;
import dev.tally.core.store.journal.RiderSink;
import java.time.Clock;
import java.util.function.Consumer;

/**
 * Opens the execution stores of one {@link StoreConfig.Kind}. Implementations are found with {@link
 * java.util.ServiceLoader} ({@code META-INF/services/dev.tally.core.runtime.StoreProvider}): core
 * provides the memory and journal stores, the {@code tally-store-postgres} module PostgreSQL, so
 * every adapter can open every store its class path holds.
 */
public interface StoreProvider {
  /** The kind of store this provider opens. */
  StoreConfig.Kind kind();

  /**
   * Opens the store {@code request} describes; throws the store's own exception (with a clear
   * message, never a password) when it cannot start.
   */
  ExecutionStore open(Request request);

  /**
   * What a provider gets.
   *
   * @param config the whole configuration ({@code store}, {@code limits.maxResultBytes}, the {@code
   *     journal} and {@code memory} tuning)
   * @param clock the clock of the store's own transitions
   * @param riders where a journal store hands the audit entries its segments still carry while it
   *     recovers, or {@code null} (stores without audit journals ignore it)
   * @param log one-line status messages, never secrets
   */
  record Request(TallyConfig config, Clock clock, RiderSink riders, Consumer<String> log) {}
}
