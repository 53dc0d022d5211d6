package dev.tally.sidecar.process;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.audit.AuditTimeline;
import dev.tally.core.audit.AuditVerification;
import dev.tally.core.audit.AuditVerifier;
import dev.tally.core.audit.SessionRef;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sessions journal of a running sidecar (issue 4): an agent's MCP session, as the upstream
 * assigned it on {@code initialize}, is journaled with its client information and actor, and the
 * executions the session started or retried name it, without the raw session id (a credential for
 * that session) reaching any file.
 */
class AuditSessionsIT {
  private static final Duration WAIT = Duration.ofSeconds(20);

  @RegisterExtension
  static final CountingUpstreamExtension UPSTREAM = new CountingUpstreamExtension();

  private final CountingUpstream upstream = UPSTREAM.get();

  @TempDir Path dir;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  @Test
  void aSessionIsJournaledWithItsClientAndNamedByWhatItStartedAndRetried() throws Exception {
    List<String> log = new CopyOnWriteArrayList<>();
    String rawSession;
    String executionId;
    try (InJvmTally tally = InJvmTally.start(dir, upstream.url(), "", log::add)) {
      HttpResponse<String> init =
          post(
              tally.mcp,
              null,
              "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
                  + "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                  + "\"clientInfo\":{\"name\":\"incident-agent\",\"version\":\"4.2\"}}}");
      assertThat(init.statusCode()).as(init.body()).isEqualTo(200);
      rawSession = init.headers().firstValue("Mcp-Session-Id").orElseThrow();

      String call =
          "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":"
              + "\"create_ticket\",\"arguments\":{\"title\":\"sessions-1\"}}}";
      HttpResponse<String> first = post(tally.mcp, rawSession, String.format(call, 2));
      assertThat(first.body()).as(first.body()).contains("created ticket");
      HttpResponse<String> retry = post(tally.mcp, rawSession, String.format(call, 3));
      assertThat(retry.body()).contains("dev.tally/replay");
      assertThat(upstream.sideEffects("sessions-1")).isOne();
      executionId = upstream.receipts("sessions-1").get(0).executionId();
    }

    Path audit = dir.resolve("journal").resolve("audit");
    AuditVerification v = AuditVerifier.create().verify(audit, Optional.empty());
    assertThat(v.exitCode(false)).as(v.message()).isZero();
    String session = SessionRef.mcpSession(rawSession).journalValue();
    List<String> sessions = Files.readAllLines(audit.resolve("sessions.jsonl"));
    JsonNode firstSeen =
        McpClient.JSON.readTree(
            sessions.stream().filter(l -> l.contains("first_seen\"")).findFirst().orElseThrow());
    assertThat(firstSeen.path("session").asText()).isEqualTo(session);
    assertThat(firstSeen.path("kind").asText()).isEqualTo("mcp_session");
    assertThat(firstSeen.path("client_name").asText()).isEqualTo("incident-agent");
    assertThat(firstSeen.path("client_version").asText()).isEqualTo("4.2");
    assertThat(firstSeen.path("protocol").asText()).isEqualTo("2025-11-25");
    assertThat(firstSeen.path("actor").asText()).isNotBlank();

    List<JsonNode> mine =
        Files.readAllLines(audit.resolve("activity.jsonl")).stream()
            .filter(l -> l.contains(executionId))
            .map(AuditSessionsIT::json)
            .toList();
    assertThat(mine)
        .filteredOn(e -> e.path("type").asText().equals("retry"))
        .singleElement()
        .satisfies(e -> assertThat(e.path("session").asText()).isEqualTo(session));
    assertThat(mine.get(0).path("session").asText())
        .as("the entry that created the execution names the session")
        .isEqualTo(session);
    assertThat(AuditTimeline.render(audit, Optional.of(executionId))).contains("incident-agent");

    try (Stream<Path> files = Files.walk(dir)) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        assertThat(Files.readString(f, StandardCharsets.ISO_8859_1))
            .as(f.toString())
            .doesNotContain(rawSession);
      }
    }
    assertThat(String.join("\n", log)).doesNotContain(rawSession);
  }

  private HttpResponse<String> post(URI mcp, String session, String body) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(mcp)
            .timeout(WAIT)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", "2025-11-25")
            .header("Authorization", "Bearer " + McpClient.TOKEN)
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (session != null) {
      b.header("Mcp-Session-Id", session);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static JsonNode json(String line) {
    try {
      return McpClient.JSON.readTree(line);
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
