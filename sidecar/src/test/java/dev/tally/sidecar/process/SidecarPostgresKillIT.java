package dev.tally.sidecar.process;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.sidecar.process.CountingUpstream.Receipt;
import dev.tally.sidecar.process.CountingUpstream.Script;
import dev.tally.store.postgres.PostgresServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two {@code tally serve} processes, replicas A and B, on one real PostgreSQL (issue 6): A is
 * {@code kill -9}ed while its call runs upstream; the retry on B waits, and once A's lease lapsed
 * (a short lease configured for the test) reports {@code OUTCOME_UNKNOWN}: never before, never a
 * second dispatch, and the upstream's side effect happens once.
 */
class SidecarPostgresKillIT {
  private static final Duration START = Duration.ofSeconds(90);
  private static final Duration ANSWER = Duration.ofSeconds(60);
  private static final String PASSWORD_ENV = "TALLY_TEST_PG_PASSWORD";

  private static PostgresServer pg;
  private static CountingUpstream upstream;
  private static McpClient client;

  @TempDir Path dir;

  @BeforeAll
  static void start() throws Exception {
    pg = PostgresServer.launch();
    upstream = CountingUpstream.start();
    client = new McpClient();
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      client.close();
      upstream.close();
    } finally {
      pg.close();
    }
  }

  /**
   * Both replicas' configuration: the same database, HMAC key and actor (as replicas behind one
   * load balancer), a 3 s lease renewed every 500 ms, and an attach wait longer than the lease so a
   * retry waits for the lease to lapse. The password reaches the process only through the
   * environment variable the URL names.
   */
  private Path config(String database) throws Exception {
    Path key = dir.resolve("hmac.keys");
    byte[] secret = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    Files.writeString(key, "k1:" + Base64.getEncoder().encodeToString(secret) + "\n");
    Path c = dir.resolve("tally.yaml");
    Files.writeString(
        c,
        "upstream:\n  url: "
            + upstream.url()
            + "\nstore: postgres://"
            + PostgresServer.ROLE
            + "@127.0.0.1:"
            + pg.port()
            + "/"
            + database
            + "?password_env="
            + PASSWORD_ENV
            + "\nhmac:\n  keyFile: "
            + key
            + "\nactor: {mode: fixed, value: kill-test}\n"
            + "lease:\n  duration: 3s\n  heartbeat: 500ms\n"
            + "sidecar:\n  eventLoops: 1\n"
            + "tools:\n  default:\n    attachWait: 30s\n");
    return c;
  }

  private TallyProcess serve(Path config) throws Exception {
    return TallyProcess.serve(
            dir, config, TallyProcess.SMALL_JVM, Map.of(PASSWORD_ENV, PostgresServer.PASSWORD))
        .awaitListening(START);
  }

  private JsonNode execution(TallyProcess p, String id) throws Exception {
    McpClient.Answer a = client.get(p.admin("/v1/executions/" + id));
    assertThat(a.status()).as(a.body()).isEqualTo(200);
    return a.message();
  }

  @Test
  void retryOnBAfterAWasKilledMidCallReportsOutcomeUnknownOnlyOnceItsLeaseLapsed()
      throws Exception {
    String database = pg.newDatabase();
    Path config = config(database);
    String title = "orphan";
    upstream.script(title, Script.HOLD);
    try (TallyProcess a = serve(config);
        TallyProcess b = serve(config)) {
      McpClient.Exchange first =
          client.send(a.mcp(), 1, CountingUpstream.IRREVERSIBLE, title, null);
      Receipt running = upstream.received(title).get(ANSWER.toMillis(), TimeUnit.MILLISECONDS);
      String id = running.executionId();

      a.kill();

      assertThat(execution(b, id).path("state").asText()).isEqualTo("dispatched");
      // A's lease as A left it (a heartbeat A sent before dying can only move it later).
      Instant leaseEnds =
          Instant.EPOCH.plus(
              pg.queryLong(
                  database,
                  "SELECT (extract(epoch FROM lease_expires_at) * 1000000)::bigint"
                      + " FROM tally_executions WHERE id = '"
                      + id
                      + "'"),
              ChronoUnit.MICROS);

      McpClient.Answer retry =
          client.call(b.mcp(), 2, CountingUpstream.IRREVERSIBLE, title, null, ANSWER);
      Instant answered = Instant.now();

      assertThat(retry.status()).as(retry.body()).isEqualTo(200);
      assertThat(retry.message().path("id").asInt()).isEqualTo(2);
      assertThat(retry.tallyCode()).as(retry.body()).isEqualTo("OUTCOME_UNKNOWN");
      assertThat(answered).as("answered after A's lease lapsed").isAfterOrEqualTo(leaseEnds);
      assertThat(execution(b, id).path("state").asText()).isEqualTo("outcome_unknown");
      assertThat(first.await(Duration.ofSeconds(1))).as("A died before answering").isNull();

      // The orphaned call finishes upstream: the one side effect, never a second dispatch.
      upstream.release(title);
      upstream.answered(title).get(ANSWER.toMillis(), TimeUnit.MILLISECONDS);
      McpClient.Answer again =
          client.call(b.mcp(), 3, CountingUpstream.IRREVERSIBLE, title, null, ANSWER);
      assertThat(again.tallyCode()).as(again.body()).isEqualTo("OUTCOME_UNKNOWN");
      assertThat(upstream.receipts(title)).hasSize(1);
      assertThat(upstream.sideEffects(title)).isEqualTo(1);

      String metrics = client.get(b.admin("/metrics")).body();
      assertThat(metrics).containsPattern("(?m)^tally_store_round_trips_total [1-9][0-9]*(\\.0)?$");
    }
  }
}
