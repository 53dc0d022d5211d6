package dev.tally.sidecar.replicas;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.actor.ActorResolvers;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.fingerprint.HmacKey;
import dev.tally.core.fingerprint.KeyRing;
import dev.tally.sidecar.it.SdkUpstream;
import dev.tally.store.postgres.PostgresServer;
import dev.tally.store.postgres.PostgresStoreOptions;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Two sidecar replicas (A and B: own gate, own lease owner, own store) over one PostgreSQL and in
 * front of one upstream: a retry on either replica never becomes a second side effect.
 *
 * <p>A replica killed mid-execution is tested with real processes and {@code kill -9} in {@link
 * dev.tally.sidecar.process.SidecarPostgresKillIT}.
 */
class SidecarPostgresReplicasIT {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static PostgresServer pg;
  private static String database;
  private static SdkUpstream upstream;
  private Replica a;
  private Replica b;
  private McpClient ca;
  private McpClient cb;
  private PostgresStoreOptions options;

  @BeforeAll
  static void startServers() throws Exception {
    pg = PostgresServer.launch();
    database = pg.newDatabase();
    upstream = new SdkUpstream();
  }

  @AfterAll
  static void stopServers() throws Exception {
    try {
      if (upstream != null) {
        upstream.close();
      }
    } finally {
      if (pg != null) {
        pg.close();
      }
    }
  }

  @BeforeEach
  void startReplicas() throws Exception {
    pg.start();
    pg.emptyTables(database);
    upstream.reset();
    options = Replica.storeOptions(pg.target(database));
    a = Replica.start("replica-a", options, upstream.url());
    b = Replica.start("replica-b", options, upstream.url());
    ca = McpClient.open(a.url);
    cb = McpClient.open(b.url);
  }

  @AfterEach
  void stopReplicas() throws Exception {
    upstream.release();
    try {
      if (a != null) {
        a.close();
      }
    } finally {
      if (b != null) {
        b.close();
      }
    }
  }

  @Test
  void retryOnBAfterACutTheResponseIsReplayedNotExecutedAgain() throws Exception {
    cutThenRetry(ca, cb, "cut", 1);

    assertThat(upstream.sideEffects).hasValue(1);
    assertThat(upstream.invocations).hasValue(1);
  }

  /**
   * Issue 22 case 3: a rolling HMAC key rotation leaves replicas on two rings for a while — A has
   * added k2 but still signs with k1, B already signs with k2 and still matches k1 — and actors are
   * {@code token_hash}, so each replica derives another actor, fingerprint and match key for the
   * same call. A call cut on either replica is still replayed by the other, never run twice.
   */
  @Test
  void duringARollingKeyRotationACallCutOnEitherReplicaIsReplayedByTheOther() throws Exception {
    a.close();
    b.close();
    HmacKey k1 = HmacKey.of("k1", "0123456789abcdef0123456789abcdef".getBytes(UTF_8));
    HmacKey k2 = HmacKey.of("k2", "fedcba9876543210fedcba9876543210".getBytes(UTF_8));
    a =
        Replica.start(
            "replica-a",
            options,
            upstream.url(),
            Clock.systemUTC(),
            KeyRing.of(k1, List.of(k2)),
            keys -> ActorResolvers.tokenHash("Authorization", keys));
    b =
        Replica.start(
            "replica-b",
            options,
            upstream.url(),
            Clock.systemUTC(),
            KeyRing.of(k2, List.of(k1)),
            keys -> ActorResolvers.tokenHash("Authorization", keys));
    String alice = "Bearer alice-token-0123456789";
    ca = McpClient.open(a.url, alice);
    cb = McpClient.open(b.url, alice);

    String onA = cutThenRetry(ca, cb, "rotate-a", 1);
    String onB = cutThenRetry(cb, ca, "rotate-b", 2);

    assertThat(onA).isNotEqualTo(onB);
    assertThat(upstream.startedExecutionIds).describedAs(this::records).hasSize(2);
    assertThat(upstream.sideEffects).hasValue(2);
  }

  /**
   * Sends a call on {@code first} whose connection is cut while the upstream runs it, waits until
   * its outcome is recorded, retries it on {@code retry} and asserts the replay of the {@code n}th
   * ticket; returns the execution id.
   */
  private String cutThenRetry(McpClient first, McpClient retry, String title, int n)
      throws Exception {
    int before = upstream.invocations.get();
    upstream.holdCalls();
    String args = "{\"title\":\"" + title + "\"}";
    Socket cut = first.send(McpClient.call(2, "create_ticket", args));
    String executionId;
    try {
      await("the upstream runs the call", () -> upstream.invocations.get() == before + 1);
      executionId = upstream.startedExecutionIds.get(before);
    } finally {
      cut.close();
    }
    upstream.release();
    Set<ExecutionState> finished =
        EnumSet.of(ExecutionState.COMPLETED, ExecutionState.COMPLETED_NOT_DELIVERED);
    await(
        "the outcome of the cut call is recorded",
        () -> a.find(executionId).map(e -> finished.contains(e.state())).orElse(false));
    HttpResponse<String> r = retry.post(McpClient.call(7, "create_ticket", args));
    assertThat(r.statusCode()).isEqualTo(200);
    JsonNode msg = McpClient.message(r.body());
    assertThat(msg.path("id").asInt()).isEqualTo(7);
    assertThat(text(msg)).isEqualTo("ticket T-" + n + " created: " + title);
    assertThat(msg.at("/result/_meta/dev.tally~1replay/executionId").asText())
        .describedAs(this::records)
        .isEqualTo(executionId);
    assertThat(upstream.invocations).hasValue(before + 1);
    return executionId;
  }

  @Test
  void retryOnBWhileARunsAttachesAndGetsTheResult() throws Exception {
    upstream.holdCalls();
    CompletableFuture<HttpResponse<String>> first =
        ca.postAsync(McpClient.call(2, "create_ticket", "{\"title\":\"attach\"}"));
    await("the upstream runs the call", () -> upstream.invocations.get() == 1);
    CompletableFuture<HttpResponse<String>> retry =
        cb.postAsync(McpClient.call(3, "create_ticket", "{\"title\":\"attach\"}"));
    await("B's retry attached to A's execution", () -> b.gateStore.waiting.get() == 1);
    assertThat(retry).isNotDone();

    upstream.release();

    JsonNode onA = McpClient.message(first.get(WAIT.toSeconds(), TimeUnit.SECONDS).body());
    JsonNode onB = McpClient.message(retry.get(WAIT.toSeconds(), TimeUnit.SECONDS).body());
    assertThat(upstream.startedExecutionIds).describedAs(this::records).hasSize(1);
    assertThat(upstream.sideEffects).hasValue(1);
    assertThat(onA.path("id").asInt()).isEqualTo(2);
    assertThat(onB.path("id").asInt()).isEqualTo(3);
    assertThat(text(onA)).isEqualTo("ticket T-1 created: attach");
    assertThat(text(onB)).isEqualTo("ticket T-1 created: attach");
    assertThat(upstream.sideEffects).hasValue(1);
    assertThat(upstream.invocations).hasValue(1);
  }

  @Test
  void aReplicaWhoseClockIsTwentySecondsAheadAttachesToALiveCallInsteadOfReapingIt()
      throws Exception {
    // On its own clock B sees A's 2 s lease as lapsed long ago; on the database's it is live.
    b.close();
    b =
        Replica.start(
            "replica-b",
            options,
            upstream.url(),
            Clock.offset(Clock.systemUTC(), Duration.ofSeconds(20)));
    cb = McpClient.open(b.url);
    upstream.holdCalls();
    CompletableFuture<HttpResponse<String>> first =
        ca.postAsync(McpClient.call(2, "create_ticket", "{\"title\":\"skew\"}"));
    await("the upstream runs the call", () -> upstream.invocations.get() == 1);
    String executionId = upstream.startedExecutionIds.get(0);

    assertThat(b.gate.tickLeases().toCompletableFuture().get(10, TimeUnit.SECONDS))
        .as("lapsed leases B found")
        .isZero();
    CompletableFuture<HttpResponse<String>> retry =
        cb.postAsync(McpClient.call(3, "create_ticket", "{\"title\":\"skew\"}"));
    await("B's retry attached to A's execution", () -> b.gateStore.waiting.get() == 1);
    assertThat(b.gate.tickLeases().toCompletableFuture().get(10, TimeUnit.SECONDS))
        .as("lapsed leases B found")
        .isZero();
    assertThat(a.find(executionId).orElseThrow().state()).isEqualTo(ExecutionState.DISPATCHED);
    assertThat(retry).isNotDone();

    upstream.release();

    JsonNode onA = McpClient.message(first.get(WAIT.toSeconds(), TimeUnit.SECONDS).body());
    JsonNode onB = McpClient.message(retry.get(WAIT.toSeconds(), TimeUnit.SECONDS).body());
    assertThat(text(onA)).isEqualTo("ticket T-1 created: skew");
    assertThat(text(onB)).isEqualTo("ticket T-1 created: skew");
    assertThat(onB.path("id").asInt()).isEqualTo(3);
    assertThat(upstream.startedExecutionIds).describedAs(this::records).hasSize(1);
    assertThat(upstream.sideEffects).hasValue(1);
  }

  @Test
  void sixtyFourIdenticalCallsOverBothReplicasExecuteOnce() throws Exception {
    upstream.holdCalls();
    List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
    for (int i = 0; i < 64; i++) {
      McpClient c = i % 2 == 0 ? ca : cb;
      calls.add(c.postAsync(McpClient.call(100 + i, "create_ticket", "{\"title\":\"crowd\"}")));
    }
    await(
        "63 retries attached to the one running execution",
        () -> a.gateStore.waiting.get() + b.gateStore.waiting.get() == 63);
    upstream.release();
    CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new))
        .get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(upstream.startedExecutionIds).describedAs(this::records).hasSize(1);
    assertThat(upstream.sideEffects).hasValue(1);

    for (int i = 0; i < calls.size(); i++) {
      HttpResponse<String> r = calls.get(i).get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(r.statusCode()).isEqualTo(200);
      JsonNode msg = McpClient.message(r.body());
      assertThat(msg.path("id").asInt()).isEqualTo(100 + i);
      assertThat(text(msg)).isEqualTo("ticket T-1 created: crowd");
    }
    assertThat(upstream.sideEffects).hasValue(1);
    assertThat(upstream.invocations).hasValue(1);
  }

  @Test
  void databaseOutageRefusesWritesLetsReadsThroughAndRecoversWithoutRestart() throws Exception {
    assertThat(text(McpClient.message(ok(ca, 2, "{\"title\":\"before\"}").body())))
        .isEqualTo("ticket T-1 created: before");
    try {
      pg.stop();
      for (McpClient c : List.of(ca, cb)) {
        HttpResponse<String> refused =
            c.post(McpClient.call(3, "create_ticket", "{\"title\":\"during\"}"));
        assertThat(refused.statusCode()).isEqualTo(503);
        assertThat(McpClient.message(refused.body()).at("/error/data/tally/code").asText())
            .isEqualTo("STORE_UNAVAILABLE");
      }
      assertThat(upstream.invocations).hasValue(1);

      HttpResponse<String> read = ca.post(McpClient.call(4, "get_ticket", "{\"id\":\"T-1\"}"));
      assertThat(read.statusCode()).isEqualTo(200);
      assertThat(text(McpClient.message(read.body()))).isEqualTo("ticket T-1");
      assertThat(upstream.readCalls).hasValue(1);
    } finally {
      pg.start();
    }

    for (McpClient c : List.of(ca, cb)) {
      String args = "{\"title\":\"after-" + (c == ca ? "a" : "b") + "\"}";
      long deadline = System.nanoTime() + WAIT.toNanos();
      HttpResponse<String> r = c.post(McpClient.call(5, "create_ticket", args));
      while (r.statusCode() == 503 && System.nanoTime() < deadline) {
        assertThat(McpClient.message(r.body()).at("/error/data/tally/code").asText())
            .isEqualTo("STORE_UNAVAILABLE");
        Thread.sleep(100);
        r = c.post(McpClient.call(5, "create_ticket", args));
      }
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(McpClient.message(r.body()).at("/result/isError").asBoolean()).isFalse();
    }
    assertThat(upstream.sideEffects).hasValue(3);
    assertThat(upstream.invocations).hasValue(3);
  }

  private static HttpResponse<String> ok(McpClient c, int id, String args) throws Exception {
    HttpResponse<String> r = c.post(McpClient.call(id, "create_ticket", args));
    assertThat(r.statusCode()).isEqualTo(200);
    return r;
  }

  /** The records behind the upstream's invocations, for a failure message. */
  private String records() {
    StringBuilder sb = new StringBuilder();
    for (String id : upstream.startedExecutionIds) {
      try {
        b.find(id)
            .ifPresentOrElse(
                e ->
                    sb.append(e)
                        .append(" key=")
                        .append(e.matchKey())
                        .append(" hold=")
                        .append(e.holdUntil())
                        .append(" lease=")
                        .append(e.lease())
                        .append(" timeline=")
                        .append(e.timeline())
                        .append('\n'),
                () -> sb.append(id).append(": no record\n"));
      } catch (Exception e) {
        sb.append(id).append(": ").append(e).append('\n');
      }
    }
    return sb.toString();
  }

  private static String text(JsonNode msg) {
    return msg.at("/result/content/0/text").asText();
  }

  /** A condition that may throw, checked until it holds. */
  private interface Check {
    boolean holds() throws Exception;
  }

  private static void await(String what, Check check) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!check.holds()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out after " + WAIT + " waiting until " + what);
      }
      Thread.sleep(20);
    }
  }
}
