package dev.tally.store.postgres;

import static dev.tally.core.testing.Stages.await;
import static dev.tally.core.testing.Stages.storeCode;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.execution.Transition;
import dev.tally.core.store.Claim;
import dev.tally.core.store.StoreException;
import dev.tally.core.testing.Executions;
import dev.tally.core.testing.MutableClock;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Two store instances on one database, as two sidecar replicas see it. */
class PostgresExecutionStoreReplicasIT {
  private static final Duration NEVER = Duration.ofMinutes(1);

  private static PostgresServer server;
  private static Vertx vertx;
  private final List<PostgresExecutionStore> opened = new ArrayList<>();
  private static String shared;
  private MutableClock clock;
  private String database;

  @BeforeAll
  static void startServer() throws Exception {
    server = PostgresServer.launch();
    vertx = Vertx.vertx();
    shared = server.newDatabase();
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
    database = shared;
    server.emptyTables(database);
  }

  @AfterEach
  void closeStores() {
    opened.forEach(PostgresExecutionStore::close);
  }

  private PostgresExecutionStore open(PostgresStoreOptions options) {
    PostgresExecutionStore store = await(PostgresExecutionStore.open(vertx, options));
    opened.add(store);
    return store;
  }

  private PostgresExecutionStore open() {
    return open(server.options(database));
  }

  /**
   * Returns once {@code store} has one caller waiting whose first read is done, so a change made
   * next can only reach it by a notification or a poll. Bounded; the first read is one statement.
   */
  private static void waitingOn(PostgresExecutionStore store) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (store.stats().waiting() != 1) {
      assertThat(System.nanoTime()).as("a caller waiting within 20 s").isLessThan(deadline);
      Thread.sleep(5);
    }
  }

  private Execution candidate(String key) {
    clock.advance(Duration.ofMillis(1));
    return Executions.candidate(clock).matchKey(key).build();
  }

  @Test
  void aClaimOnOneReplicaIsTheHolderOnTheOther() {
    PostgresExecutionStore a = open();
    PostgresExecutionStore b = open();
    String key = Executions.uniqueKey();
    Execution first = candidate(key);

    assertThat(await(a.claim(first, clock.instant()))).isEqualTo(new Claim.Won(first));
    Claim second = await(b.claim(candidate(key), clock.instant()));

    assertThat(second).isEqualTo(new Claim.Existing(first));
    assertThat(await(b.find(first.id()))).contains(first);
    assertThat(await(b.findHolder(key, clock.instant()))).contains(first);
  }

  @Test
  void awaitChangeWakesWhenTheOtherReplicaTransitionsByNotification() throws Exception {
    PostgresExecutionStore a = open();
    PostgresExecutionStore b =
        open(
            server
                .options(database)
                .withIntervals(
                    Duration.ofMinutes(1), Duration.ofSeconds(1), Duration.ofSeconds(1)));
    assertThat(b.stats().listening()).isTrue();
    Execution accepted = candidate(Executions.uniqueKey());
    await(a.claim(accepted, clock.instant()));
    CompletableFuture<Optional<Execution>> change =
        b.awaitChange(accepted.id(), accepted.version(), NEVER).toCompletableFuture();
    waitingOn(b);

    Execution authorized =
        await(a.transition(Transition.to(accepted, ExecutionState.AUTHORIZED, clock.instant())));

    assertThat(change.get(20, TimeUnit.SECONDS)).contains(authorized);
    // One notification, sent by A after its commit: the trigger announced neither the claim nor
    // the transition (they arrive on the same connection, in commit order, before A's own).
    assertThat(b.stats().notifications()).isEqualTo(1);
    assertThat(a.stats().notifyStatements()).isEqualTo(1);
    assertThat(b.stats().polls()).isZero();
  }

  @Test
  void aChangeFromASessionWithoutTheNotifySettingIsNotifiedByTheTrigger() throws Exception {
    PostgresExecutionStore a = open();
    PostgresExecutionStore b = open();
    Execution accepted = candidate(Executions.uniqueKey());
    await(a.claim(accepted, clock.instant()));
    CompletableFuture<Optional<Execution>> change =
        b.awaitChange(accepted.id(), accepted.version(), NEVER).toCompletableFuture();
    waitingOn(b);

    // As a release before schema version 2, or an operator's statement, would change it.
    server.admin(
        database,
        "UPDATE tally_executions SET version = version + 1 WHERE id = '"
            + accepted.id().value()
            + "'");

    assertThat(change.get(20, TimeUnit.SECONDS).map(Execution::version))
        .contains(accepted.version() + 1);
    assertThat(b.stats().notifications()).isEqualTo(1);
  }

  @Test
  void changesOfRecordsThatHaveAnOutcomeAreNotAnnounced() {
    PostgresExecutionStore a = open();
    Execution accepted = candidate(Executions.uniqueKey());
    await(a.claim(accepted, clock.instant()));
    Execution dispatched =
        await(a.transition(Transition.to(accepted, ExecutionState.DISPATCHED, clock.instant())));
    Execution completed =
        await(
            a.transition(
                Transition.to(dispatched, ExecutionState.COMPLETED, clock.instant())
                    .withResult(new byte[] {'{', '}'}, false)));
    assertThat(a.notifier().announced()).isEqualTo(2);

    await(a.transition(Transition.to(completed, ExecutionState.DELIVERED, clock.instant())));

    assertThat(a.notifier().announced()).isEqualTo(2);
  }

  @Test
  void awaitChangeStillWakesWithNotificationsDisabled() throws Exception {
    PostgresExecutionStore a = open();
    PostgresExecutionStore b =
        open(
            server
                .options(database)
                .withNotifications(false)
                .withIntervals(
                    Duration.ofMillis(50), Duration.ofSeconds(1), Duration.ofSeconds(1)));
    assertThat(b.stats().listening()).isFalse();
    Execution accepted = candidate(Executions.uniqueKey());
    await(a.claim(accepted, clock.instant()));
    CompletableFuture<Optional<Execution>> change =
        b.awaitChange(accepted.id(), accepted.version(), NEVER).toCompletableFuture();
    waitingOn(b);

    Execution authorized =
        await(a.transition(Transition.to(accepted, ExecutionState.AUTHORIZED, clock.instant())));

    assertThat(change.get(20, TimeUnit.SECONDS)).contains(authorized);
    assertThat(b.stats().polls()).isPositive();
    assertThat(b.stats().notifications()).isZero();
  }

  @Test
  void aWaiterOnTheOtherReplicaEndsEmptyWhenTheRecordIsPurged() throws Exception {
    PostgresExecutionStore a = open();
    PostgresExecutionStore b =
        open(
            server
                .options(database)
                .withIntervals(
                    Duration.ofMinutes(1), Duration.ofSeconds(1), Duration.ofSeconds(1)));
    Execution accepted =
        Executions.candidate(clock).retainFor(Duration.ofMinutes(1)).holdFor(Duration.ZERO).build();
    await(a.claim(accepted, clock.instant()));
    Execution failed =
        await(a.transition(Transition.to(accepted, ExecutionState.FAILED, clock.instant())));
    CompletableFuture<Optional<Execution>> change =
        b.awaitChange(failed.id(), failed.version(), NEVER).toCompletableFuture();
    waitingOn(b);

    clock.advance(Duration.ofMinutes(2));
    assertThat(await(a.purge(clock.instant(), 10))).isEqualTo(1);

    assertThat(change.get(20, TimeUnit.SECONDS)).isEmpty();
    // Woken by the delete trigger's notification, not by polling.
    assertThat(b.stats().polls()).isZero();
  }

  @Test
  void concurrentClaimsAcrossTwoReplicasHaveExactlyOneWinner() throws Exception {
    PostgresExecutionStore a = open();
    PostgresExecutionStore b = open();
    String key = Executions.uniqueKey();
    List<Execution> candidates = new ArrayList<>();
    for (int i = 0; i < 64; i++) {
      candidates.add(candidate(key));
    }
    Instant now = clock.instant();
    CountDownLatch start = new CountDownLatch(1);
    List<CompletableFuture<Claim>> claims = new ArrayList<>();
    for (int i = 0; i < candidates.size(); i++) {
      PostgresExecutionStore store = i % 2 == 0 ? a : b;
      Execution c = candidates.get(i);
      claims.add(
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  start.await();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
                return await(store.claim(c, now));
              },
              command -> new Thread(command).start()));
    }
    start.countDown();

    List<Claim> outcomes = new ArrayList<>();
    for (CompletableFuture<Claim> f : claims) {
      outcomes.add(f.get(30, TimeUnit.SECONDS));
    }

    List<Claim> won = outcomes.stream().filter(c -> c instanceof Claim.Won).toList();
    assertThat(won).hasSize(1);
    Execution winner = won.get(0).execution();
    assertThat(outcomes)
        .filteredOn(c -> c instanceof Claim.Existing)
        .hasSize(63)
        .allSatisfy(c -> assertThat(c.execution()).isEqualTo(winner));
    for (Execution c : candidates) {
      assertThat(await(a.find(c.id())).isPresent()).isEqualTo(c.id().equals(winner.id()));
    }
  }

  @Test
  void concurrentTransitionsAcrossReplicasHaveExactlyOneWinner() {
    PostgresExecutionStore a = open();
    PostgresExecutionStore b = open();
    Execution accepted = candidate(Executions.uniqueKey());
    await(a.claim(accepted, clock.instant()));
    Transition t = Transition.to(accepted, ExecutionState.AUTHORIZED, clock.instant());

    CompletableFuture<Execution> viaA = a.transition(t).toCompletableFuture();
    CompletableFuture<Execution> viaB = b.transition(t).toCompletableFuture();

    List<Object> outcomes = new ArrayList<>();
    for (CompletableFuture<Execution> f : List.of(viaA, viaB)) {
      try {
        outcomes.add(await(f));
      } catch (StoreException e) {
        outcomes.add(e.code());
      }
    }
    assertThat(outcomes).filteredOn(o -> o instanceof Execution).hasSize(1);
    assertThat(outcomes).contains(StoreException.Code.STALE_VERSION);
    Execution now = await(b.find(accepted.id())).orElseThrow();
    assertThat(now.version()).isEqualTo(2);
    assertThat(storeCode(a.transition(t))).isEqualTo(StoreException.Code.STALE_VERSION);
  }

  @Test
  void aHappyPathTakesOneRoundTripPerWrite() {
    PostgresExecutionStore a = open();
    Execution accepted = candidate(Executions.uniqueKey());
    long before = a.stats().roundTrips();
    await(a.claim(accepted, clock.instant()));
    long claimed = a.stats().roundTrips();
    Execution authorized =
        await(a.transition(Transition.to(accepted, ExecutionState.AUTHORIZED, clock.instant())));
    Execution dispatched =
        await(a.transition(Transition.to(authorized, ExecutionState.DISPATCHED, clock.instant())));
    Execution completed =
        await(
            a.transition(
                Transition.to(dispatched, ExecutionState.COMPLETED, clock.instant())
                    .withResult(new byte[] {'{', '}'}, false)));
    long beforeDelivered = a.stats().roundTrips();
    await(a.transition(Transition.to(completed, ExecutionState.DELIVERED, clock.instant())));

    assertThat(claimed - before).isEqualTo(1);
    assertThat(beforeDelivered - claimed).isEqualTo(3);
    assertThat(a.stats().roundTrips() - beforeDelivered).isEqualTo(1);
  }

  @Test
  void aReplicaWithoutTheRecordCachedReadsItFirst() {
    PostgresExecutionStore a = open();
    PostgresExecutionStore b = open(server.options(database).withRecordCacheSize(0));
    Execution accepted = candidate(Executions.uniqueKey());
    await(a.claim(accepted, clock.instant()));
    long before = b.stats().roundTrips();

    Execution authorized =
        await(b.transition(Transition.to(accepted, ExecutionState.AUTHORIZED, clock.instant())));

    assertThat(b.stats().roundTrips() - before).isEqualTo(2);
    assertThat(await(a.find(accepted.id()))).contains(authorized);
  }

  @Test
  void replicasStartingTogetherMigrateOnce() throws Exception {
    database = server.newDatabase();
    List<CompletableFuture<PostgresExecutionStore>> starting = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      starting.add(
          PostgresExecutionStore.open(vertx, server.options(database)).toCompletableFuture());
    }
    for (CompletableFuture<PostgresExecutionStore> f : starting) {
      opened.add(f.get(30, TimeUnit.SECONDS));
    }
    assertThat(server.queryLong(database, "SELECT count(*) FROM tally_schema_version"))
        .isEqualTo(Schema.LATEST);
    Execution e = candidate(Executions.uniqueKey());
    assertThat(await(opened.get(3).claim(e, clock.instant()))).isInstanceOf(Claim.Won.class);
    assertThat(await(opened.get(0).find(e.id()))).contains(e);
  }
}
