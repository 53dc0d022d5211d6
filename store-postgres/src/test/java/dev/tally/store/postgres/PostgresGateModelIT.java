package dev.tally.store.postgres;

import static dev.tally.core.testing.Stages.await;

import dev.tally.core.model.GateModelSuite;
import dev.tally.core.model.ModelStores;
import dev.tally.core.store.ExecutionStore;
import dev.tally.core.testing.MutableClock;
import io.vertx.core.Vertx;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The gate model on a real PostgreSQL: one database, its tables emptied before every run; a crash
 * closes the store and opens a new instance on the same database (as a restarted replica does),
 * which leaves executions dispatched by the old one to their lapsing leases.
 */
class PostgresGateModelIT extends GateModelSuite {
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
  protected ModelStores stores() {
    return new ModelStores() {
      @Override
      public ExecutionStore open(MutableClock clock) {
        server.emptyTables(database);
        return await(PostgresExecutionStore.open(vertx, server.options(database)));
      }

      @Override
      public ExecutionStore reopen(ExecutionStore store, MutableClock clock) {
        store.close();
        return await(PostgresExecutionStore.open(vertx, server.options(database)));
      }
    };
  }

  @Override
  protected String storeName() {
    return "postgres";
  }
}
