package dev.tally.store.postgres;

import static dev.tally.core.testing.Stages.await;
import static dev.tally.core.testing.Stages.failure;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.execution.Transition;
import dev.tally.core.store.Claim;
import dev.tally.core.store.ExecutionQuery;
import dev.tally.core.store.StoreException;
import dev.tally.core.testing.Executions;
import dev.tally.core.testing.MutableClock;
import io.vertx.core.Vertx;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The store when the database goes away, hangs, or refuses the credentials: it fails closed and
 * promptly with UNAVAILABLE, never shows the password, and recovers by itself.
 */
class PostgresExecutionStoreFailuresIT {
  private static final long PROMPT_MILLIS = 10_000;

  private static PostgresServer server;
  private static Vertx vertx;
  private static String database;
  private MutableClock clock;

  @BeforeAll
  static void startServer() throws Exception {
    server = PostgresServer.launch();
    vertx = Vertx.vertx();
    database = server.newDatabase();
  }

  @AfterAll
  static void stopServer() throws Exception {
    try {
      vertx.close().toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
    } finally {
      server.close();
    }
  }

  @BeforeEach
  void emptyDatabase() {
    clock = MutableClock.create();
    server.emptyTables(database);
  }

  private PostgresStoreOptions quick(PostgresTarget target) {
    return PostgresStoreOptions.defaults(target)
        .withTimeouts(Duration.ofSeconds(10), Duration.ofSeconds(2))
        .withIntervals(Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(100));
  }

  private Execution candidate() {
    clock.advance(Duration.ofMillis(1));
    return Executions.candidate(clock).build();
  }

  private static StoreException unavailablePromptly(Supplier<CompletionStage<?>> operation) {
    long start = System.nanoTime();
    Throwable t = failure(operation.get());
    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    assertThat(t).isInstanceOf(StoreException.class);
    StoreException e = (StoreException) t;
    assertThat(e.code()).as("%s", e.getMessage()).isEqualTo(StoreException.Code.UNAVAILABLE);
    assertThat(e.getMessage()).contains("unavailable").contains("retry later");
    assertThat(millis).as("failed after %d ms", millis).isLessThan(PROMPT_MILLIS);
    assertNoPassword(e);
    return e;
  }

  private static void assertNoPassword(Throwable t) {
    StringWriter w = new StringWriter();
    t.printStackTrace(new PrintWriter(w));
    assertThat(w.toString()).doesNotContain(PostgresServer.PASSWORD);
  }

  /** Waits, bounded, for a condition that depends on an outside process (the server). */
  private static void eventually(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("condition within 30 s").isLessThan(deadline);
      Thread.sleep(50);
    }
  }

  @Test
  void anOutageFailsClosedAndTheStoreRecoversWithoutReopening() throws Exception {
    try (LogCapture logs = LogCapture.start()) {
      PostgresExecutionStore store =
          await(PostgresExecutionStore.open(vertx, quick(server.target(database))));
      try {
        Execution accepted = candidate();
        assertThat(await(store.claim(accepted, clock.instant()))).isInstanceOf(Claim.Won.class);
        assertThat(store.isWritable()).isTrue();

        server.stop();

        Execution during = candidate();
        unavailablePromptly(() -> store.claim(during, clock.instant()));
        assertThat(store.isWritable()).isFalse();
        Transition authorize = Transition.to(accepted, ExecutionState.AUTHORIZED, clock.instant());
        unavailablePromptly(() -> store.transition(authorize));
        unavailablePromptly(() -> store.find(accepted.id()));
        unavailablePromptly(
            () -> store.awaitChange(accepted.id(), accepted.version(), Duration.ofMillis(200)));
        unavailablePromptly(() -> store.list(new ExecutionQuery(null, null, null, null, 10)));
        assertThat(store.stats().outages()).isGreaterThanOrEqualTo(5);
        assertThat(store.stats().writable()).isFalse();
        eventually(() -> !store.stats().listening());

        server.start();

        eventually(store::isWritable);
        eventually(() -> store.stats().listening());
        Execution authorized = await(store.transition(authorize));
        assertThat(authorized.version()).isEqualTo(2);
        assertThat(await(store.find(during.id()))).as("the failed claim wrote nothing").isEmpty();
        assertThat(await(store.claim(during, clock.instant()))).isInstanceOf(Claim.Won.class);
      } finally {
        store.close();
        server.start();
      }
      assertThat(logs.size()).isPositive();
      assertThat(logs.text())
          .contains("not listening for changes")
          .doesNotContain(PostgresServer.PASSWORD);
    }
  }

  @Test
  void aStatementThatHangsFailsWithinTheStatementTimeout() throws Exception {
    PostgresExecutionStore store =
        await(PostgresExecutionStore.open(vertx, quick(server.target(database))));
    try (Connection blocker = server.connect(database);
        Statement st = blocker.createStatement()) {
      blocker.setAutoCommit(false);
      st.execute("LOCK TABLE tally_holders IN ACCESS EXCLUSIVE MODE");

      unavailablePromptly(() -> store.claim(candidate(), clock.instant()));

      blocker.rollback();
      assertThat(await(store.claim(candidate(), clock.instant()))).isInstanceOf(Claim.Won.class);
    } finally {
      store.close();
    }
  }

  @Test
  void aWrongPasswordFailsToOpenWithoutShowingEitherPassword() throws Exception {
    String wrong = "wrong-" + PostgresServer.PASSWORD;
    PostgresTarget target =
        PostgresTarget.of("127.0.0.1", server.port(), database, PostgresServer.ROLE, wrong);
    try (LogCapture logs = LogCapture.start()) {
      Throwable t = failure(PostgresExecutionStore.open(vertx, quick(target)));

      assertThat(t).isInstanceOf(StoreException.class);
      assertThat(((StoreException) t).code()).isEqualTo(StoreException.Code.UNAVAILABLE);
      assertThat(t.getMessage()).contains("authentication failed").doesNotContain(wrong);
      assertNoPassword(t);
      StringWriter w = new StringWriter();
      t.printStackTrace(new PrintWriter(w));
      assertThat(w.toString()).doesNotContain(wrong);
      assertThat(logs.text()).doesNotContain(wrong).doesNotContain(PostgresServer.PASSWORD);
    }
  }

  @Test
  void anUnreachableDatabaseFailsToOpenPromptly() {
    PostgresTarget nowhere =
        PostgresTarget.of("127.0.0.1", 1, database, PostgresServer.ROLE, PostgresServer.PASSWORD);
    StoreException e =
        unavailablePromptly(() -> PostgresExecutionStore.open(vertx, quick(nowhere)));
    assertThat(e.getMessage()).contains("postgres://tally:<redacted>@127.0.0.1:1/" + database);
  }

  @Test
  void toStringsNeverShowThePassword() {
    PostgresExecutionStore store =
        await(PostgresExecutionStore.open(vertx, quick(server.target(database))));
    try {
      assertThat(store.toString()).doesNotContain(PostgresServer.PASSWORD).contains("<redacted>");
      assertThat(store.options().toString()).doesNotContain(PostgresServer.PASSWORD);
      assertThat(store.stats().toString()).doesNotContain(PostgresServer.PASSWORD);
    } finally {
      store.close();
    }
  }

  @Test
  void aSchemaNewerThanThisReleaseIsRefusedAtOpen() {
    await(PostgresExecutionStore.open(vertx, quick(server.target(database)))).close();
    server.admin(
        database,
        "INSERT INTO tally_schema_version (version, description) VALUES (99, 'from the future')");
    try {
      Throwable t = failure(PostgresExecutionStore.open(vertx, quick(server.target(database))));

      assertThat(t).isInstanceOf(StoreException.class);
      assertThat(((StoreException) t).code()).isEqualTo(StoreException.Code.CORRUPT);
      assertThat(t.getMessage()).contains("version 99").contains("upgrade Tally");
    } finally {
      server.admin(database, "DELETE FROM tally_schema_version WHERE version = 99");
    }
  }

  @Test
  void columnsAddedByALaterReleaseAreIgnoredAndNullOptionalsAreAbsent() {
    server.admin(database, "ALTER TABLE tally_executions ADD COLUMN later text DEFAULT 'x'");
    try {
      PostgresExecutionStore store =
          await(PostgresExecutionStore.open(vertx, quick(server.target(database))));
      try {
        Execution e = candidate();
        await(store.claim(e, clock.instant()));
        Execution found = await(store.find(e.id())).orElseThrow();
        assertThat(found).isEqualTo(e);
        assertThat(found.lease()).isNull();
        assertThat(found.error()).isNull();
        assertThat(found.result()).isNull();
        assertThat(found.targetStatus()).isNull();
      } finally {
        store.close();
      }
    } finally {
      server.admin(database, "ALTER TABLE tally_executions DROP COLUMN later");
    }
  }

  @Test
  void aRowThisReleaseCannotReadIsCorruptAndNamesTheColumn() {
    PostgresExecutionStore store =
        await(PostgresExecutionStore.open(vertx, quick(server.target(database))));
    try {
      Execution e = candidate();
      await(store.claim(e, clock.instant()));
      server.admin(
          database,
          "UPDATE tally_executions SET tool_class = 'from_the_future' WHERE id = '" + e.id() + "'");

      Throwable t = failure(store.find(e.id()));

      assertThat(t).isInstanceOf(StoreException.class);
      assertThat(((StoreException) t).code()).isEqualTo(StoreException.Code.CORRUPT);
      assertThat(t.getMessage()).contains("tool_class");
    } finally {
      store.close();
    }
  }

  @Test
  void aStoreOpenedFromItsUrlOnItsOwnVertxWorksAndClosesIt() {
    String url =
        "postgres://"
            + PostgresServer.ROLE
            + ":"
            + URLEncoder.encode(PostgresServer.PASSWORD, StandardCharsets.UTF_8)
            + "@127.0.0.1:"
            + server.port()
            + "/"
            + database;
    PostgresExecutionStore store =
        PostgresExecutionStore.openBlocking(url, 2048, Duration.ofSeconds(60));
    try {
      Execution e = candidate();
      assertThat(await(store.claim(e, clock.instant()))).isInstanceOf(Claim.Won.class);
      assertThat(store.maxResultBytes()).isEqualTo(2048);
    } finally {
      store.close();
    }
    assertThat(failure(store.find(candidate().id()))).isInstanceOf(StoreException.class);
  }

  @Test
  void openingFromAUrlFailsWithClearErrors() {
    assertThatThrownBy(
            () ->
                PostgresExecutionStore.openBlocking(
                    "postgres://u:" + PostgresServer.PASSWORD + "@h:0/db",
                    1,
                    Duration.ofSeconds(5)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("port")
        .hasMessageNotContaining(PostgresServer.PASSWORD);
    assertThatThrownBy(
            () ->
                PostgresExecutionStore.openBlocking(
                    "postgres://u:" + PostgresServer.PASSWORD + "@127.0.0.1:1/db",
                    1,
                    Duration.ofSeconds(30)))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("unavailable")
        .hasMessageNotContaining(PostgresServer.PASSWORD);
  }
}
