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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.web.servlet.context.ServletWebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The example application on a real port (0, read back): a side-effecting tool called twice with
 * the same {@code Idempotency-Key} over real HTTP runs once, and the second answer is Tally's
 * replay; a new key is a new ticket. And the README's write-control walk-through through the admin
 * servlet.
 */
class TicketsApplicationRetryIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;
  private ConfigurableApplicationContext app;
  private URI endpoint;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private String session;

  private static final String ADMIN_TOKEN = "example-admin-token-0123456789abcdef";
  private static final String AGENT = "Bearer example-agent-token";

  private URI admin;

  private void start(String yaml) throws Exception {
    Path config = dir.resolve("tally.yaml");
    Files.writeString(config, yaml);
    Path token = dir.resolve("admin.token");
    Files.writeString(token, ADMIN_TOKEN + "\n");
    app =
        SpringApplication.run(
            TicketsApplication.class,
            "--server.port=0",
            "--server.address=127.0.0.1",
            "--tally.config-file=" + config,
            "--tally.admin-token-file=" + token);
    int port = ((ServletWebServerApplicationContext) app).getWebServer().getPort();
    endpoint = URI.create("http://127.0.0.1:" + port + TicketsApplication.ENDPOINT);
    admin = URI.create("http://127.0.0.1:" + port + TicketsApplication.ADMIN);
  }

  @AfterEach
  void stop() {
    if (app != null) {
      app.close();
    }
  }

  private void initialize() throws Exception {
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
  }

  @Test
  void aRetryWithTheSameKeyIsReplayedAndRunsTheToolOnce() throws Exception {
    start("store: memory\ntools:\n  create_ticket: {class: keyed}\n");
    initialize();
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

  /**
   * The README's walk-through: writes start off (only the read-only tool is listed), the operator
   * turns them on through the admin servlet, the call waits for its person, who confirms it through
   * the servlet with their own credential; it runs once and the retry replays it; the operator sees
   * it among the executions, and the console page is served.
   */
  @Test
  void theOperatorTurnsWritesOnAndThePersonConfirmsThroughTheAdminServlet() throws Exception {
    start(
        "store: memory\nwrites:\n  enabled: false\n"
            + "tools:\n  create_ticket:\n    confirmationRequired: true\n");
    initialize();
    Tickets tickets = app.getBean(Tickets.class);
    String list = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}";
    assertThat(answer(post(list, null)).path("result").path("tools").toString())
        .contains("count_tickets")
        .doesNotContain("create_ticket");
    assertThat(answer(post(call(3, "printer"), null)).path("error").path("code").asInt())
        .as("a hidden write is an unknown tool")
        .isEqualTo(-32602);

    assertThat(adminCall("POST", "/v1/writes", "{\"enabled\":true}", "Bearer x").statusCode())
        .isEqualTo(401);
    HttpResponse<String> on =
        adminCall("POST", "/v1/writes", "{\"enabled\":true}", "Bearer " + ADMIN_TOKEN);
    assertThat(on.statusCode()).as(on.body()).isEqualTo(200);
    assertThat(answer(post(list, null)).path("result").path("tools").toString())
        .contains("create_ticket");

    JsonNode pending = answer(post(call(4, "printer"), null)).path("result");
    JsonNode sc = pending.path("structuredContent");
    assertThat(sc.path("status").asText()).as(pending.toString()).isEqualTo("pending_confirmation");
    String id = sc.path("actionId").asText();
    assertThat(sc.path("confirmUrl").asText()).endsWith("/tally/console/actions/" + id);
    assertThat(tickets.created()).as("nothing ran yet").isZero();

    HttpResponse<String> page = adminCall("GET", "/console", null, null);
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.body()).contains("/tally/console/console.js");

    HttpResponse<String> confirmed =
        adminCall("POST", "/v1/actions/" + id + "/confirm", "{}", AGENT);
    assertThat(confirmed.statusCode()).as(confirmed.body()).isEqualTo(200);
    assertThat(tickets.created()).as("confirming ran it").isEqualTo(1);
    JsonNode retry = answer(post(call(5, "printer"), null));
    assertThat(retry.path("result").path("content").get(0).path("text").asText())
        .isEqualTo("created T-1 (printer)");
    assertThat(tickets.created()).isEqualTo(1);

    HttpResponse<String> executions =
        adminCall("GET", "/v1/executions?tool=create_ticket", null, "Bearer " + ADMIN_TOKEN);
    assertThat(executions.statusCode()).isEqualTo(200);
    assertThat(JSON.readTree(executions.body()).path("items").get(0).path("executionId").asText())
        .isEqualTo(id);
  }

  private HttpResponse<String> adminCall(
      String method, String path, String body, String authorization) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(admin + path))
            .timeout(Duration.ofSeconds(60))
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    if (body != null) {
      b.header("Content-Type", "application/json");
    }
    if (authorization != null) {
      b.header("Authorization", authorization);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
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
            .header("Authorization", AGENT)
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
