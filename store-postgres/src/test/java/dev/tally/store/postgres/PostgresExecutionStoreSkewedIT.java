package dev.tally.store.postgres;

import static dev.tally.core.testing.Stages.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.core.store.ExecutionStore;
import dev.tally.core.store.ExecutionStoreContract;
import dev.tally.core.testing.MutableClock;
import io.vertx.core.Vertx;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The shared store contract over a real PostgreSQL by a store whose wall clock is 7 s behind the
 * database's: every deadline it writes, reads back and compares is translated (see {@link
 * DatabaseClock}), and the contract cannot tell.
 */
class PostgresExecutionStoreSkewedIT extends ExecutionStoreContract {
  private static final Duration SKEW = Duration.ofSeconds(-7);
  private static PostgresServer server;
  private static Vertx vertx;
  private static String database;

  @BeforeAll
  static void startServer() throws Exception {
    server = PostgresServer.launch();
    vertx = Vertx.vertx();
    database = server.newDatabase();
  }

  @AfterAll
  static void stopServer() throws Exception {
    try {
      if (vertx != null) {
        vertx.close().toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
      }
    } finally {
      if (server != null) {
        server.close();
      }
    }
  }

  private static PostgresExecutionStore open() {
    PostgresExecutionStore store =
        await(
            PostgresExecutionStore.open(
                vertx,
                server.options(database).withWallClock(Clock.offset(Clock.systemUTC(), SKEW))));
    assertThat(store.clockOffset()).isEqualTo(SKEW.negated());
    return store;
  }

  @Override
  protected ExecutionStore createStore(MutableClock clock) {
    server.emptyTables(database);
    return open();
  }

  /** A new store instance on the same database, as after a restart of the replica. */
  @Override
  protected ExecutionStore reopen(ExecutionStore store, MutableClock clock) {
    store.close();
    return open();
  }
}
