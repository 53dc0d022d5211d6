package dev.tally.store.postgres;

import static dev.tally.core.testing.Stages.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.fingerprint.HmacKey;
import dev.tally.core.fingerprint.KeyRing;
import dev.tally.core.gate.Decision;
import dev.tally.core.gate.Gate;
import dev.tally.core.gate.GateOptions;
import dev.tally.core.gate.ToolCall;
import dev.tally.core.mcp.TallyCode;
import dev.tally.core.store.Claim;
import dev.tally.core.testing.Executions;
import dev.tally.core.testing.MutableClock;
import io.vertx.core.Vertx;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Two replicas on one database whose clocks differ by {@link #SKEW}: replica A's store and gate run
 * on time, B's are 20 s ahead (its store's wall clock is the system clock plus 20 s, its gate's
 * test clock stands 20 s ahead of A's and moves with it). Leases, holds and retention are compared
 * on the database's clock, so B neither reaps A's live call nor takes its key early, and a lease
 * lapses for both replicas at the same moment.
 */
class PostgresClockSkewIT {
  private static final Duration SKEW = Duration.ofSeconds(20);
  private static final Duration LEASE = GateOptions.DEFAULT_LEASE;

  /**
   * Longer than the test runs, so the keepers' own timers stay out of the way: it ticks by hand.
   */
  private static final Duration KEEPER_PERIOD = LEASE.minusSeconds(1);

  /** More than the measuring error of a store's offset on the loopback, far less than a second. */
  private static final Duration CLOSE = Duration.ofMillis(200);

  private static final KeyRing KEYS =
      KeyRing.of(
          HmacKey.of("k1", "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII)));
  private static final ObjectMapper JSON = new ObjectMapper();

  private static PostgresServer server;
  private static Vertx vertx;
  private static String database;
  private final List<AutoCloseable> opened = new ArrayList<>();
  private MutableClock clockA;
  private MutableClock clockB;

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

  @BeforeEach
  void emptyDatabase() {
    server.emptyTables(database);
    clockA = MutableClock.create();
    clockB = MutableClock.at(MutableClock.DEFAULT_START.plus(SKEW));
  }

  @AfterEach
  void closeAll() throws Exception {
    for (int i = opened.size() - 1; i >= 0; i--) {
      opened.get(i).close();
    }
  }

  /** Both replicas' clocks move together: real time passes. */
  private void elapse(Duration d) {
    clockA.advance(d);
    clockB.advance(d);
  }

  private PostgresExecutionStore open(Clock wall) {
    PostgresExecutionStore store =
        await(PostgresExecutionStore.open(vertx, server.options(database).withWallClock(wall)));
    opened.add(store);
    return store;
  }

  private PostgresExecutionStore storeA() {
    PostgresExecutionStore a = open(Clock.systemUTC());
    assertThat(a.clockOffset()).as("A's clock agrees with the database's").isZero();
    return a;
  }

  private PostgresExecutionStore storeB() {
    PostgresExecutionStore b = open(Clock.offset(Clock.systemUTC(), SKEW));
    assertThat(b.clockOffset().plus(SKEW).abs())
        .as("B measured its clock 20 s ahead of the database's")
        .isLessThan(CLOSE);
    return b;
  }

  private Gate gate(PostgresExecutionStore store, String owner, Clock clock) {
    GateOptions d = GateOptions.defaults(owner);
    Gate g =
        Gate.builder(store, KEYS)
            .options(
                new GateOptions(
                    owner,
                    LEASE,
                    KEEPER_PERIOD,
                    d.idempotencyArgument(),
                    d.idempotencyHeader(),
                    d.intentScopeHeader(),
                    d.credentialRef()))
            .actors(headers -> "actor-1")
            .clock(clock)
            .build();
    opened.add(g);
    return g;
  }

  private static Decision admit(Gate g) throws Exception {
    ToolCall call =
        new ToolCall(
            "create_ticket",
            JSON.readTree("{\"title\":\"skew\"}"),
            null,
            false,
            name -> null,
            "http://up");
    return g.admit(call).toCompletableFuture().get(20, TimeUnit.SECONDS);
  }

  private static Duration between(Instant expected, Instant actual) {
    return Duration.between(expected, actual).abs();
  }

  private static Execution find(PostgresExecutionStore store, ExecutionId id) {
    return await(store.find(id)).orElseThrow();
  }

  /**
   * A dispatches and heartbeats; then B looks at the call when A's lease has 18 s left, which on
   * B's own clock lapsed 2 s ago. Returns when A heartbeat.
   */
  private Instant dispatchOnAAndHeartbeat(Gate gateA, ExecutionId[] id) throws Exception {
    id[0] = ((Decision.Dispatch) admit(gateA)).inFlight().id();
    elapse(Duration.ofSeconds(15));
    await(gateA.tickLeases());
    Instant heartbeat = clockA.instant();
    elapse(LEASE.minus(Duration.ofSeconds(18)));
    return heartbeat;
  }

  @Test
  void anIdenticalRetryOnAReplicaAheadAttachesToALiveCall() throws Exception {
    PostgresExecutionStore a = storeA();
    PostgresExecutionStore b = storeB();
    Gate gateA = gate(a, "replica-a", clockA);
    Gate gateB = gate(b, "replica-b", clockB);
    ExecutionId[] id = new ExecutionId[1];
    dispatchOnAAndHeartbeat(gateA, id);
    long version = find(a, id[0]).version();

    Decision retry = admit(gateB);

    assertThat(retry).isInstanceOf(Decision.Attach.class);
    assertThat(((Decision.Attach) retry).execution().id()).isEqualTo(id[0]);
    Execution live = find(a, id[0]);
    assertThat(live.state()).isEqualTo(ExecutionState.DISPATCHED);
    assertThat(live.version()).isEqualTo(version);
  }

  @Test
  void aReplicaAheadNeitherReapsNorTakesOverALiveCallUntilItsLeaseReallyLapses() throws Exception {
    PostgresExecutionStore a = storeA();
    PostgresExecutionStore b = storeB();
    Gate gateA = gate(a, "replica-a", clockA);
    Gate gateB = gate(b, "replica-b", clockB);
    ExecutionId[] ids = new ExecutionId[1];
    Instant heartbeat = dispatchOnAAndHeartbeat(gateA, ids);
    ExecutionId id = ids[0];

    assertThat(await(gateB.tickLeases())).as("lapsed leases B found").isZero();
    assertThat(admit(gateB)).isInstanceOf(Decision.Attach.class);
    Execution live = find(b, id);
    assertThat(live.state()).isEqualTo(ExecutionState.DISPATCHED);
    assertThat(live.leaseLapsed(clockB.instant())).isFalse();
    // B reads A's lease in its own time; A still reads back exactly what it wrote.
    assertThat(between(heartbeat.plus(LEASE).plus(SKEW), live.lease().expiresAt()))
        .isLessThan(CLOSE);
    assertThat(find(a, id).lease().expiresAt()).isEqualTo(heartbeat.plus(LEASE));

    // A stops heartbeating. One second before its lease ends, B still leaves the call alone.
    gateA.close();
    elapse(Duration.between(clockA.instant(), heartbeat.plus(LEASE)).minusSeconds(1));
    assertThat(await(gateB.tickLeases())).as("lapsed leases B found").isZero();
    assertThat(find(b, id).state()).isEqualTo(ExecutionState.DISPATCHED);

    // Once it really ended, B reaps it, and an identical retry is told the outcome is unknown.
    elapse(Duration.ofSeconds(2));
    assertThat(await(gateB.tickLeases())).as("lapsed leases B found").isEqualTo(1);
    assertThat(find(a, id).state()).isEqualTo(ExecutionState.OUTCOME_UNKNOWN);
    Decision after = admit(gateB);
    assertThat(after).isInstanceOf(Decision.Respond.class);
    assertThat(((Decision.Respond) after).code()).isEqualTo(TallyCode.OUTCOME_UNKNOWN);
    assertThat(((Decision.Respond) after).execution().id()).isEqualTo(id);
  }

  @Test
  void aReplicaBehindReapsTheLapsedLeaseOfAReplicaAheadOnTime() throws Exception {
    PostgresExecutionStore a = storeA();
    PostgresExecutionStore b = storeB();
    Gate gateA = gate(a, "replica-a", clockA);
    Gate gateB = gate(b, "replica-b", clockB);
    ExecutionId id = ((Decision.Dispatch) admit(gateB)).inFlight().id();
    gateB.close(); // B stops heartbeating at once

    elapse(LEASE.minusSeconds(1));
    assertThat(await(gateA.tickLeases())).as("lapsed leases A found").isZero();
    elapse(Duration.ofSeconds(2));
    // On A's own clock the lease would still have 20 s to go.
    assertThat(await(gateA.tickLeases())).as("lapsed leases A found").isEqualTo(1);
    assertThat(find(b, id).state()).isEqualTo(ExecutionState.OUTCOME_UNKNOWN);
  }

  @Test
  void aReplicaAheadDoesNotClaimAKeyAReplicaBehindStillHolds() {
    PostgresExecutionStore a = storeA();
    PostgresExecutionStore b = storeB();
    String key = Executions.uniqueKey();
    Execution first =
        Executions.candidate(clockA).matchKey(key).holdFor(Duration.ofMinutes(1)).build();
    assertThat(await(a.claim(first, clockA.instant()))).isInstanceOf(Claim.Won.class);

    elapse(Duration.ofSeconds(50)); // 10 s of A's hold left; on B's clock it ended 10 s ago
    Execution second = Executions.candidate(clockB).matchKey(key).build();
    Claim early = await(b.claim(second, clockB.instant()));
    assertThat(early).isInstanceOf(Claim.Existing.class);
    assertThat(early.execution().id()).isEqualTo(first.id());
    assertThat(between(first.holdUntil().plus(SKEW), early.execution().holdUntil()))
        .isLessThan(CLOSE);
    assertThat(await(b.findHolder(key, clockB.instant())).map(Execution::id)).contains(first.id());

    elapse(Duration.ofSeconds(11));
    assertThat(await(b.findHolder(key, clockB.instant()))).isEmpty();
    assertThat(await(b.claim(second, clockB.instant()))).isEqualTo(new Claim.Won(second));
  }

  @Test
  void aSkewBeyondTheBoundIsLoggedAsAWarningWithoutASecret() {
    try (LogCapture logs = LogCapture.start()) {
      storeB();

      assertThat(logs.text(Level.WARNING))
          .containsPattern(
              "the clock of this replica is (19999|20000)\\.\\d ms \\(±\\d+\\.\\d ms\\)"
                  + " ahead of the database clock")
          .contains("store.postgres.clockSkewWarning: 1000 ms");
      assertThat(logs.text()).doesNotContain(PostgresServer.PASSWORD);
    }
  }

  @Test
  void theOffsetFollowsAWallClockThatIsSetAnotherTime() throws Exception {
    SettableSkew wall = new SettableSkew();
    PostgresExecutionStore store =
        await(
            PostgresExecutionStore.open(
                vertx,
                server
                    .options(database)
                    .withClock(wall, Duration.ofMillis(50), Duration.ofSeconds(1))));
    opened.add(store);
    assertThat(store.clockOffset()).isZero();
    Execution e = Executions.candidate(clockA).holdFor(Duration.ofMinutes(1)).build();
    await(store.claim(e, clockA.instant()));

    wall.skew.set(SKEW); // as when time synchronization steps this host's clock
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (store.clockOffset().isZero()) {
      assertThat(System.nanoTime()).as("measured again within 20 s").isLessThan(deadline);
      Thread.sleep(20);
    }

    assertThat(store.clockOffset().plus(SKEW).abs()).isLessThan(CLOSE);
    Instant hold = await(store.find(e.id())).orElseThrow().holdUntil();
    assertThat(between(e.holdUntil().plus(SKEW), hold)).isLessThan(CLOSE);
  }

  /** The system clock plus a skew a test can change. */
  private static final class SettableSkew extends Clock {
    final AtomicReference<Duration> skew = new AtomicReference<>(Duration.ZERO);

    @Override
    public Instant instant() {
      return Instant.now().plus(skew.get());
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      throw new UnsupportedOperationException();
    }
  }
}
