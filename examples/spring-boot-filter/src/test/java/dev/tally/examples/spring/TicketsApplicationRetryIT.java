package dev.tally.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.web.servlet.context.ServletWebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The example application on a real port (0, read back): a side-effecting tool called twice with
 * the same {@code Idempotency-Key} over real HTTP runs once, and the second answer is Tally's
 * replay. A new key is a new ticket.
 */
class TicketsApplicationRetryIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;
  private ConfigurableApplicationContext app;
  private URI endpoint;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private String session;

  @BeforeEach
  void start() throws Exception {
    Path config = dir.resolve("tally.yaml");
    Files.writeString(config, "store: memory\ntools:\n  create_ticket: {class: keyed}\n");
    app =
        SpringApplication.run(
            TicketsApplication.class,
            "--server.port=0",
            "--server.address=127.0.0.1",
            "--tally.config-file=" + config);
    int port = ((ServletWebServerApplicationContext) app).getWebServer().getPort();
    endpoint = URI.create("http://127.0.0.1:" + port + TicketsApplication.ENDPOINT);
  }

  @AfterEach
  void stop() {
    if (app != null) {
      app.close();
    }
  }

  @Test
  void aRetryWithTheSameKeyIsReplayedAndRunsTheToolOnce() throws Exception {
    HttpResponse<String> init =
        post(
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
                + "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                + "\"clientInfo\":{\"name\":\"it\",\"version\":\"1\"}}}",
            null);
    assertThat(init.statusCode()).as(init.body()).isEqualTo(200);
    session = init.headers().firstValue("Mcp-Session-Id").orElseThrow();
    assertThat(
            post("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", null)
                .statusCode())
        .isEqualTo(202);

    Tickets tickets = app.getBean(Tickets.class);
    JsonNode first = answer(post(call(2, "disk full"), "k-1"));
    JsonNode retry = answer(post(call(3, "disk full"), "k-1")); // a retry has a new id
    assertThat(tickets.created()).as("the tool ran once").isEqualTo(1);

    assertThat(first.path("id").asInt()).isEqualTo(2);
    assertThat(first.path("result").path("_meta").has("dev.tally/replay")).isFalse();
    assertThat(retry.path("id").asInt()).isEqualTo(3);
    JsonNode replay = retry.path("result").path("_meta").path("dev.tally/replay");
    assertThat(replay.path("executionId").asText()).startsWith("act_");
    assertThat(retry.path("result").path("content"))
        .isEqualTo(first.path("result").path("content"));
    assertThat(first.path("result").path("content").get(0).path("text").asText())
        .isEqualTo("created T-1 (disk full)");

    JsonNode second = answer(post(call(4, "disk full"), "k-2"));
    assertThat(tickets.created()).as("a new key is a new ticket").isEqualTo(2);
    assertThat(second.path("result").path("_meta").has("dev.tally/replay")).isFalse();
  }

  private static String call(int id, String title) {
    return "{\"jsonrpc\":\"2.0\",\"id\":"
        + id
        + ",\"method\":\"tools/call\",\"params\":{\"name\":\"create_ticket\","
        + "\"arguments\":{\"title\":\""
        + title
        + "\"}}}";
  }

  private HttpResponse<String> post(String body, String idempotencyKey) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(endpoint)
            .timeout(Duration.ofSeconds(30))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            // The agent proves who it is: a stored result is replayed only to the same caller.
            .header("Authorization", "Bearer example-agent-token")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (session != null) {
      b.header("Mcp-Session-Id", session).header("MCP-Protocol-Version", "2025-11-25");
    }
    if (idempotencyKey != null) {
      b.header("Idempotency-Key", idempotencyKey);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** The JSON-RPC response in a JSON or SSE body. */
  private static JsonNode answer(HttpResponse<String> r) throws Exception {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    String ct = r.headers().firstValue("Content-Type").orElse("");
    if (!ct.startsWith("text/event-stream")) {
      return JSON.readTree(r.body());
    }
    for (String line : r.body().split("\r?\n")) {
      if (line.startsWith("data:")) {
        JsonNode n = JSON.readTree(line.substring(5).strip());
        if (n.has("id") && (n.has("result") || n.has("error"))) {
          return n;
        }
      }
    }
    throw new AssertionError("no JSON-RPC response in: " + r.body());
  }
}
