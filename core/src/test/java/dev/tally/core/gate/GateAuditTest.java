package dev.tally.core.gate;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tally.core.audit.AuditJournals;
import dev.tally.core.audit.AuditOptions;
import dev.tally.core.audit.AuditTimeline;
import dev.tally.core.audit.AuditVerification;
import dev.tally.core.audit.AuditVerifier;
import dev.tally.core.audit.AuditedExecutionStore;
import dev.tally.core.audit.SessionRef;
import dev.tally.core.canonical.Jcs;
import dev.tally.core.contract.ContractRegistry;
import dev.tally.core.fingerprint.HmacKey;
import dev.tally.core.fingerprint.KeyRing;
import dev.tally.core.mcp.Headers;
import dev.tally.core.store.ExecutionStore;
import dev.tally.core.store.MemoryExecutionStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GateAuditTest {
  @TempDir Path dir;

  @Test
  void everyTransitionAndTheReplayReachTheVerifiedActivityJournal() throws Exception {
    byte[] k = new byte[32];
    Arrays.fill(k, (byte) 7);
    KeyRing keys = KeyRing.of(HmacKey.of("k1", k));
    String secret = "do-not-log-this-title";
    // Whoever holds an MCP session id can speak in that session: the journals keep a digest only.
    String rawSession = "raw-session-id-do-not-log";
    String id;
    try (AuditJournals journals =
            AuditJournals.open(dir, AuditOptions.defaults().withTarget("http://up"));
        ExecutionStore store = AuditedExecutionStore.wrap(MemoryExecutionStore.create(), journals);
        Gate gate =
            Gate.builder(store, keys)
                .options(GateOptions.defaults("a"))
                .contracts(ContractRegistry.defaults())
                .actors(h -> "alice")
                .jcs(Jcs.create())
                .clock(Clock.systemUTC())
                .audit(journals)
                .build()) {
      Map<String, String> h =
          Map.of("Mcp-Session-Id", rawSession, "MCP-Protocol-Version", "2025-11-25");
      Headers headers = h::get;
      gate.sessionStarted(rawSession, headers, "claude-code", "1.0.3", "2025-11-25");
      ToolCall call =
          new ToolCall(
              "create_ticket",
              new ObjectMapper().readTree("{\"title\":\"" + secret + "\"}"),
              null,
              false,
              headers,
              "http://up");
      Decision.Dispatch d =
          (Decision.Dispatch) gate.admit(call).toCompletableFuture().get(5, TimeUnit.SECONDS);
      id = d.inFlight().id().value();
      d.inFlight()
          .completed(200, "{\"ok\":true}".getBytes(StandardCharsets.UTF_8), false)
          .toCompletableFuture()
          .get();
      d.inFlight().notDelivered().toCompletableFuture().get();
      Decision retry = gate.admit(call).toCompletableFuture().get(5, TimeUnit.SECONDS);
      assertThat(retry).isInstanceOf(Decision.Replay.class);
      journals.flush();
    }
    AuditVerification v = AuditVerifier.create().verify(dir, Optional.empty());
    assertThat(v.exitCode(false)).as(v.message()).isZero();
    String timeline = AuditTimeline.render(dir, Optional.of(id));
    assertThat(timeline).contains("dispatched", "completed", "completed_not_delivered");
    assertThat(timeline.toLowerCase()).contains("replay");
    assertThat(
            Files.readAllLines(dir.resolve("activity.jsonl")).stream()
                .filter(l -> l.contains("\"type\":\"retry\""))
                .count())
        .as("one retry answered, one retry entry")
        .isOne();
    String session = SessionRef.mcpSession(rawSession).journalValue();
    List<String> activity = Files.readAllLines(dir.resolve("activity.jsonl"));
    assertThat(activity.stream().filter(l -> l.contains("\"session\":\"" + session + "\"")))
        .as("the creation entry and the retry entry name the session")
        .hasSize(2);
    List<String> sessions = Files.readAllLines(dir.resolve("sessions.jsonl"));
    assertThat(sessions.get(0))
        .contains("\"event\":\"first_seen\"")
        .contains("\"session\":\"" + session + "\"")
        .contains("\"actor\":\"alice\"")
        .contains("\"client_name\":\"claude-code\"")
        .contains("\"client_version\":\"1.0.3\"")
        .contains("\"protocol\":\"2025-11-25\"");
    assertThat(timeline).contains("claude-code");
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        assertThat(Files.readString(f, StandardCharsets.ISO_8859_1))
            .as(f.toString())
            .doesNotContain(secret)
            .doesNotContain(rawSession);
      }
    }
  }
}
