package dev.tally.sidecar.process;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.audit.AuditTimeline;
import dev.tally.core.audit.AuditVerification;
import dev.tally.core.audit.AuditVerifier;
import dev.tally.sidecar.process.CountingUpstream.Script;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tally serve} as a real process in front of a counting upstream in the test JVM: health and
 * readiness, a recorded write, the {@code SIGTERM} drain, start-up refusals.
 */
class ServeProcessIT {
  private static final Duration START = Duration.ofSeconds(60);
  private static final Duration ANSWER = Duration.ofSeconds(30);

  private static CountingUpstream upstream;
  private static McpClient client;

  @TempDir Path dir;

  @BeforeAll
  static void startUpstream() throws Exception {
    upstream = CountingUpstream.start();
    client = new McpClient();
  }

  @AfterAll
  static void stopUpstream() throws Exception {
    client.close();
    upstream.close();
  }

  private Path config(String extraYaml) throws IOException {
    Path c = dir.resolve("tally.yaml");
    Files.writeString(
        c,
        "upstream:\n  url: "
            + upstream.url()
            + "\nstore: journal:"
            + dir.resolve("journal")
            + "\n"
            + extraYaml);
    return c;
  }

  private TallyProcess serve(Path config) throws Exception {
    return TallyProcess.serve(dir, config, TallyProcess.SMALL_JVM, Map.of()).awaitListening(START);
  }

  private JsonNode execution(TallyProcess p, String id) throws Exception {
    McpClient.Answer a = client.get(p.admin("/v1/executions/" + id));
    assertThat(a.status()).as(a.body()).isEqualTo(200);
    return a.message();
  }

  private void awaitState(TallyProcess p, String id, String state) throws Exception {
    String[] last = {""};
    Poll.until(
        Duration.ofSeconds(20),
        () -> {
          try {
            last[0] = execution(p, id).path("state").asText();
            return last[0].equals(state);
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        },
        () -> id + " is " + last[0] + ", expected " + state);
  }

  @Test
  void readyOnlyOnceTheUpstreamAnswersThenAWriteIsRecordedWithItsTimeline() throws Exception {
    upstream.reachable(false);
    try (TallyProcess p = serve(config(""))) {
      McpClient.Answer health = client.get(p.admin("/healthz"));
      assertThat(health.status()).isEqualTo(200);
      assertThat(health.message().path("status").asText()).isEqualTo("alive");
      McpClient.Answer notReady = client.get(p.admin("/readyz"));
      assertThat(notReady.status()).as(notReady.body()).isEqualTo(503);
      assertThat(notReady.message().path("reason").asText()).contains("upstream");

      upstream.reachable(true);
      int[] status = {0};
      Poll.until(
          Duration.ofSeconds(30),
          () -> {
            try {
              status[0] = client.get(p.admin("/readyz")).status();
            } catch (IOException | InterruptedException e) {
              throw new IllegalStateException(e);
            }
            return status[0] == 200;
          },
          () -> "/readyz still " + status[0]);

      McpClient.Answer a =
          client.call(p.mcp(), 1, CountingUpstream.IRREVERSIBLE, "serve-write", null, ANSWER);
      assertThat(a.status()).as(a.body()).isEqualTo(200);
      assertThat(a.isToolResult()).as(a.body()).isTrue();
      List<CountingUpstream.Receipt> seen = upstream.receipts("serve-write");
      assertThat(seen).hasSize(1);
      String id = seen.get(0).idempotencyKey();
      assertThat(id).startsWith("act_").isEqualTo(seen.get(0).executionId());
      assertThat(a.ticket()).isEqualTo(upstream.ticketOf(id));

      awaitState(p, id, "delivered");
      JsonNode record = execution(p, id);
      assertThat(record.path("tool").asText()).isEqualTo(CountingUpstream.IRREVERSIBLE);
      assertThat(record.path("toolClass").asText()).isEqualTo("irreversible");
      assertThat(record.path("fingerprint").asText()).matches("hmac-sha256:[^:]+:[0-9a-f]{64}");
      assertThat(record.path("timeline").fieldNames())
          .toIterable()
          .contains("accepted_at", "dispatched_at", "completed_at", "delivered_at");
      assertThat(record.toString()).doesNotContain("serve-write");

      // The journal store holds its executions in memory until their retention ends: a gauge
      // lets operators size the heap before it runs out.
      String metrics = client.get(p.admin("/metrics")).body();
      assertThat(metrics)
          .containsPattern("(?m)^tally_store_executions 1(\\.0)?$")
          .containsPattern("(?m)^tally_journal_fsyncs_total [1-9][0-9]*(\\.0)?$");
    } finally {
      upstream.reachable(true);
    }
  }

  @Test
  void aFullJournalStoreRefusesNewCallsClearlyAndSendsNothingUpstream() throws Exception {
    try (TallyProcess p =
        TallyProcess.serve(
                dir, config(""), TallyProcess.SMALL_JVM, Map.of("TALLY_JOURNAL_MAX_BYTES", "40000"))
            .awaitListening(START)) {
      McpClient.Answer refused = null;
      int accepted = 0;
      for (int i = 0; i < 500 && refused == null; i++) {
        McpClient.Answer a =
            client.call(p.mcp(), i, CountingUpstream.IRREVERSIBLE, "full-" + i, null, ANSWER);
        if (a.isToolResult()) {
          accepted++;
        } else {
          refused = a;
        }
      }
      assertThat(refused).as("refused within 500 calls").isNotNull();
      assertThat(accepted).isPositive();
      assertThat(refused.status()).as(refused.body()).isEqualTo(503);
      assertThat(refused.body()).contains("STORE_UNAVAILABLE").doesNotContain("full-");
      // Nothing unrecorded went upstream: every execution there is one the store holds.
      assertThat(upstream.receipts("full-" + accepted)).isEmpty();
      assertThat(upstream.receipts("full-" + (accepted - 1))).hasSize(1);

      McpClient.Answer ready = client.get(p.admin("/readyz"));
      assertThat(ready.status()).as(ready.body()).isEqualTo(503);
      assertThat(ready.message().path("reason").asText()).contains("store");
      String metrics = client.get(p.admin("/metrics")).body();
      assertThat(metrics)
          .containsPattern("(?m)^tally_journal_store_max_bytes 40000(\\.0)?$")
          .containsPattern("(?m)^tally_journal_store_bytes [1-9][0-9]*(\\.0)?$")
          .containsPattern("(?m)^tally_store_executions " + accepted + "(\\.0)?$");
    }
  }

  @Test
  void sigtermLetsASlowWriteFinishThenExitsZeroAndASecondServeOnTheJournalIsRefused()
      throws Exception {
    Path config = config("");
    String title = "slow-write";
    upstream.script(title, Script.after(Duration.ofMillis(1500)));
    String id;
    try (TallyProcess p = serve(config)) {
      McpClient.Exchange x = client.send(p.mcp(), 2, CountingUpstream.IRREVERSIBLE, title, null);
      id =
          upstream
              .received(title)
              .get(ANSWER.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)
              .idempotencyKey();
      long t0 = System.nanoTime();
      p.terminate();
      // Draining: readiness fails at once, and a new call is refused without reaching the
      // upstream, while the call in flight goes on.
      String[] ready = {""};
      Poll.until(
          Duration.ofSeconds(10),
          () -> {
            try {
              McpClient.Answer r = client.get(p.admin("/readyz"));
              ready[0] = r.status() + " " + r.body();
              return r.status() == 503;
            } catch (IOException | InterruptedException e) {
              throw new IllegalStateException(e);
            }
          },
          () -> "/readyz during the drain: " + ready[0]);
      assertThat(ready[0]).contains("draining");
      String late = "during-drain";
      // The listener still accepts during the drain: a new connection is answered, not refused.
      McpClient.Answer refused =
          client.call(p.mcp(), 3, CountingUpstream.IRREVERSIBLE, late, null, ANSWER);
      assertThat(refused.status()).as(refused.body()).isEqualTo(503);
      assertThat(refused.body()).contains("SHUTTING_DOWN");
      assertThat(upstream.receipts(late)).as("a call sent during the drain").isEmpty();
      McpClient.Answer a = x.await(ANSWER);
      assertThat(a).as("the in-flight call is answered during the drain").isNotNull();
      assertThat(a.isToolResult()).as(a.body()).isTrue();
      assertThat(a.ticket()).isEqualTo(upstream.ticketOf(id));
      assertThat(p.awaitExit(Duration.ofSeconds(40))).as(p.output()).isZero();
      Duration took = Duration.ofNanos(System.nanoTime() - t0);
      assertThat(took).isLessThan(Duration.ofSeconds(25)); // default drain bound 20s, + slack
      assertThat(p.stdout()).contains("tally: drained; 0 unfinished execution(s)");
    }
    try (TallyProcess p = serve(config)) {
      awaitState(p, id, "delivered");
      TallyProcess second = TallyProcess.serve(dir, config, TallyProcess.SMALL_JVM, Map.of());
      try (second) {
        assertThat(second.awaitExit(START)).as(second.output()).isEqualTo(3);
        assertThat(second.stderr().strip())
            .doesNotContain("\n")
            .contains("journal directory")
            .contains("in use by another Tally store");
      }
      assertThat(p.isAlive()).isTrue();
    }
    assertThat(upstream.sideEffects(title)).isEqualTo(1);
  }

  @Test
  void sigtermPastTheDrainBoundRecordsOutcomeUnknownAndStillExitsZero() throws Exception {
    Path config = config("sidecar:\n  drainTimeout: 1s\n");
    String title = "held-write";
    upstream.script(title, Script.HOLD);
    String id;
    try (TallyProcess p = serve(config)) {
      McpClient.Exchange x = client.send(p.mcp(), 3, CountingUpstream.IRREVERSIBLE, title, null);
      id =
          upstream
              .received(title)
              .get(ANSWER.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)
              .idempotencyKey();
      long t0 = System.nanoTime();
      p.terminate();
      assertThat(p.awaitExit(Duration.ofSeconds(30))).as(p.output()).isZero();
      Duration took = Duration.ofNanos(System.nanoTime() - t0);
      // drainTimeout 1s; the rest of the stop is bounded by TallyServer.stop's own timeouts.
      assertThat(took).isLessThan(Duration.ofSeconds(20));
      assertThat(p.stdout()).contains("tally: drained; 1 unfinished execution(s)");
      // The abandoned call's connection is closed without an answer (its retry reports it).
      McpClient.Answer drained = x.await(ANSWER);
      assertThat(drained == null || !drained.isToolResult()).isTrue();
    } finally {
      upstream.release(title);
    }
    try (TallyProcess p = serve(config)) {
      awaitState(p, id, "outcome_unknown");
      McpClient.Answer retry =
          client.call(p.mcp(), 4, CountingUpstream.IRREVERSIBLE, title, null, ANSWER);
      assertThat(retry.tallyCode()).as(retry.body()).isEqualTo("OUTCOME_UNKNOWN");
      assertThat(retry.result().path("isError").asBoolean()).isTrue();
      assertThat(
              retry.result().path("structuredContent").path("tally").path("executionId").asText())
          .isEqualTo(id);
    }
    assertThat(upstream.sideEffects(title)).isEqualTo(1);
  }

  /** Without {@code --config}, {@code TALLY_CONFIG} names the file (config/README.md). */
  /**
   * Audit entries are not forced on their own: they ride in the journal's group commit. A power
   * loss can then take the audit file's unforced bytes; here {@code kill -9} is followed by
   * truncating {@code activity.jsonl} to nothing (more than a power loss takes), and the restart
   * rewrites every entry from the journal: the chain verifies and the write's timeline is whole.
   */
  @Test
  void aRestartRewritesAuditEntriesAPowerLossTookFromTheJournal() throws Exception {
    Path config = config("");
    Path activity = dir.resolve("journal").resolve("audit").resolve("activity.jsonl");
    String id;
    try (TallyProcess p = serve(config)) {
      McpClient.Answer a =
          client.call(p.mcp(), 1, CountingUpstream.IRREVERSIBLE, "power-loss", null, ANSWER);
      assertThat(a.isToolResult()).as(a.body()).isTrue();
      id = upstream.receipts("power-loss").get(0).idempotencyKey();
      awaitState(p, id, "delivered");
      p.kill();
    }
    long lost = Files.size(activity);
    assertThat(lost).isPositive();
    Files.write(activity, new byte[0]); // truncates: nothing of it was forced

    try (TallyProcess p = serve(config)) {
      assertThat(p.stdout() + p.stderr())
          .containsPattern(
              "audit journals in \\S+: [1-9][0-9]* bytes of audit entries a crash took from"
                  + " the files restored");
      assertThat(Files.size(activity)).isGreaterThanOrEqualTo(lost);
      assertThat(execution(p, id).path("state").asText()).isEqualTo("delivered");
      p.terminate();
      p.awaitExit(Duration.ofSeconds(30));
    }
    AuditVerification v =
        AuditVerifier.create().verify(dir.resolve("journal").resolve("audit"), Optional.empty());
    assertThat(v.outcome()).as(v.message()).isEqualTo(AuditVerification.Outcome.OK);
    assertThat(AuditTimeline.render(dir.resolve("journal").resolve("audit"), Optional.of(id)))
        .contains("dispatched", "completed", "delivered");
  }

  @Test
  void theConfigFileCanBeNamedByTallyConfig() throws Exception {
    Path config = config("");
    try (TallyProcess p =
        TallyProcess.start(
                dir,
                TallyProcess.SMALL_JVM,
                Map.of("TALLY_CONFIG", config.toAbsolutePath().toString()),
                List.of("serve", "--listen", "127.0.0.1:0", "--admin", "127.0.0.1:0"))
            .awaitListening(START)) {
      McpClient.Answer a =
          client.call(p.mcp(), 1, CountingUpstream.IRREVERSIBLE, "via-env-config", null, ANSWER);
      assertThat(a.isToolResult()).as("the upstream from the file: " + a.body()).isTrue();
      assertThat(upstream.sideEffects("via-env-config")).isOne();
    }
  }

  @Test
  void badFlagsAndSettingsExitTwoWithOneLineNamingTheKey() throws Exception {
    Path config = config("");
    try (TallyProcess p =
        TallyProcess.start(
            dir,
            TallyProcess.SMALL_JVM,
            Map.of(),
            List.of("serve", "--config", config.toString(), "--listen", "nonsense"))) {
      assertThat(p.awaitExit(START)).as(p.output()).isEqualTo(2);
      assertThat(p.stderr().strip()).doesNotContain("\n").contains("sidecar.listen");
    }
    try (TallyProcess p =
        TallyProcess.serve(
            dir, config, TallyProcess.SMALL_JVM, Map.of("TALLY_JOURNAL_COMPACT_RATIO", "0.5"))) {
      assertThat(p.awaitExit(START)).as(p.output()).isEqualTo(2);
      assertThat(p.stderr().strip()).doesNotContain("\n").contains("journal.compactRatio");
    }
    try (TallyProcess p =
        TallyProcess.serve(
            dir, config, TallyProcess.SMALL_JVM, Map.of("TALLY_SIDECAR_DRAIN_TIMEOUT", "soon"))) {
      assertThat(p.awaitExit(START)).as(p.output()).isEqualTo(2);
      assertThat(p.stderr().strip()).doesNotContain("\n").contains("sidecar.drainTimeout");
    }
  }
}
