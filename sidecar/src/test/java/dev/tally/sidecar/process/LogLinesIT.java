package dev.tally.sidecar.process;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tally.core.fingerprint.KeyFiles;
import java.net.ServerSocket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 19, logs: with {@code TALLY_LOG_FORMAT=json} every line {@code tally serve} writes to
 * stderr is one JSON object, and a call whose upstream cannot be reached leaves a WARN line of
 * {@code dev.tally.calls} whose members are exactly the names ({@code time}, {@code level},
 * {@code logger}, {@code message}, {@code execution_id}, {@code tool}, {@code decision}, {@code
 * trace_id}, flattened at the top level), and neither the argument value nor the bearer token.
 */
class LogLinesIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  @Test
  void anUnreachableUpstreamLeavesAStructuredWarnLineWithoutArgumentValues() throws Exception {
    int closed;
    try (ServerSocket s = new ServerSocket(0)) {
      closed = s.getLocalPort(); // nothing listens there once the socket is closed
    }
    Path keys = dir.resolve("keys").resolve("hmac.keys");
    KeyFiles.generate(keys, Clock.systemUTC());
    Path config = dir.resolve("tally.yaml");
    Files.writeString(
        config,
        "upstream:\n  url: http://127.0.0.1:"
            + closed
            + "/mcp\nstore: journal:"
            + dir.resolve("data").resolve("journal")
            + "\n");
    String argument = "MARKarg" + UUID.randomUUID().toString().replace("-", "");
    String token = "MARKtok" + UUID.randomUUID().toString().replace("-", "");
    HttpClient http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10))
            .build();
    TallyProcess p =
        TallyProcess.serve(
                dir,
                config,
                TallyProcess.SMALL_JVM,
                Map.of("TALLY_LOG_FORMAT", "json"),
                "--hmac-key-file",
                keys.toString())
            .awaitListening(Duration.ofSeconds(60));
    try (p) {
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(p.mcp())
                  .timeout(Duration.ofSeconds(30))
                  .header("Content-Type", "application/json")
                  .header("Accept", "application/json, text/event-stream")
                  .header("Authorization", "Bearer " + token)
                  .POST(
                      HttpRequest.BodyPublishers.ofString(
                          "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{"
                              + "\"name\":\"create_ticket\",\"arguments\":{\"title\":\""
                              + argument
                              + "\"}}}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).as(r.body()).isEqualTo(502);
      assertThat(r.body()).contains("UPSTREAM_UNAVAILABLE");
      Poll.until(
          Duration.ofSeconds(30),
          () -> p.stderr().contains("upstream unreachable"),
          () -> "stderr: " + p.stderr());
      p.terminate();
      assertThat(p.awaitExit(Duration.ofSeconds(40))).as(p.output()).isZero();
    }
    List<JsonNode> lines = new ArrayList<>();
    for (String line : p.stderr().split("\n")) {
      if (!line.isBlank()) {
        lines.add(JSON.readTree(line)); // throws on a line that is not one JSON object
      }
    }
    JsonNode warn =
        lines.stream()
            .filter(l -> l.path("message").asText().contains("upstream unreachable"))
            .findFirst()
            .orElseThrow();
    assertThat(warn.path("level").asText()).isEqualTo("WARN");
    assertThat(warn.path("logger").asText()).isEqualTo("dev.tally.calls");
    assertThat(warn.path("time").asText())
        .matches("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z");
    assertThat(warn.path("execution_id").asText()).startsWith("act_");
    assertThat(warn.path("tool").asText()).isEqualTo("create_ticket");
    assertThat(warn.path("decision").asText()).isEqualTo("dispatch");
    assertThat(warn.path("trace_id").asText()).matches("[0-9a-f]{32}");
    List<String> names = new ArrayList<>();
    warn.fieldNames().forEachRemaining(names::add);
    assertThat(names)
        .as("the issue's names, flattened at the top level")
        .containsExactly(
            "time", "level", "logger", "message", "execution_id", "tool", "decision", "trace_id");
    for (JsonNode l : lines) {
      assertThat(l.has("time") && l.has("level") && l.has("logger") && l.has("message"))
          .as(l.toString())
          .isTrue();
      assertThat(l.has("kvpList") || l.has("loggerName") || l.has("timestamp"))
          .as(l.toString())
          .isFalse();
    }
    assertThat(p.stdout() + p.stderr()).doesNotContain(argument).doesNotContain(token);
  }
}
