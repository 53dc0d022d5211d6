package dev.tally.store.postgres;

import static dev.tally.core.testing.Stages.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.core.store.ExecutionStore;
import dev.tally.core.store.ExecutionStoreContract;
import dev.tally.core.testing.MutableClock;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The shared store contract over a real PostgreSQL: one database for the class, its tables emptied
 * before each test.
 */
class PostgresExecutionStoreIT extends ExecutionStoreContract {
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

  @Override
  protected ExecutionStore createStore(MutableClock clock) {
    server.emptyTables(database);
    return await(PostgresExecutionStore.open(vertx, server.options(database)));
  }

  /** A new store instance on the same database, as after a restart of the replica. */
  @Override
  protected ExecutionStore reopen(ExecutionStore store, MutableClock clock) {
    store.close();
    return await(PostgresExecutionStore.open(vertx, server.options(database)));
  }

  @Test
  void purgeDeletesInShortBatchesWhateverTheLimit() {
    int records = Reads.PURGE_BATCH + 50;
    for (int i = 0; i < records; i++) {
      claimed(candidate().holdFor(Duration.ZERO).retainFor(Duration.ofMinutes(1)));
    }
    clock.advance(Duration.ofMinutes(2));
    PostgresExecutionStore pg = (PostgresExecutionStore) store;
    long before = pg.stats().roundTrips();

    assertThat(await(store.purge(clock.instant(), 10_000))).isEqualTo(records);

    assertThat(pg.stats().roundTrips() - before).isEqualTo(2);
    assertThat(await(store.purge(clock.instant(), 10_000))).isZero();
  }
}
