package dev.tally.filter;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tally.core.config.ConfigOverrides;
import dev.tally.core.config.TallyConfig;
import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.gate.Confirmations;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 18 through the servlet filter: a 2026-07-28 call its person confirmed is sent by the
 * filter's own client exactly as its client sent it, {@code Mcp-Param-Region} (the tool's {@code
 * x-mcp-header} parameter) included, to a servlet that validates the mirrored headers itself
 * ({@link MiniMcpServlet}).
 */
class FilterConfirmedModernCallIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ALICE = "Bearer alice-filter-token-0123";
  private static final String META =
      "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}";

  private final HttpClient http = HttpClient.newHttpClient();
  private MiniApp app;

  @BeforeEach
  void start() throws Exception {
    app =
        new MiniApp(
            true,
            TallyConfig.parse(
                "store: memory\ntools:\n  write:\n    confirmationRequired: true\n",
                "test",
                ConfigOverrides.none()));
  }

  @AfterEach
  void stop() throws Exception {
    app.close();
  }

  private HttpResponse<String> post(String method, String body, String... headers)
      throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(app.endpoint)
            .timeout(Duration.ofSeconds(15))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("Authorization", ALICE)
            .header("MCP-Protocol-Version", "2026-07-28")
            .header("Mcp-Method", method)
            .POST(HttpRequest.BodyPublishers.ofString(body));
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void aConfirmedModernCallCarriesItsParameterHeader() throws Exception {
    HttpResponse<String> list =
        post(
            "tools/list",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{" + META + "}}");
    assertThat(list.statusCode()).as(list.body()).isEqualTo(200);
    String region = "eu-w\u00e9st";
    String call =
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"write\","
            + "\"arguments\":{\"message\":\"m\",\"region\":\""
            + region
            + "\"},"
            + META
            + "}}";
    HttpResponse<String> first =
        post(
            "tools/call",
            call,
            "Mcp-Name",
            "write",
            "Mcp-Param-Region",
            "=?base64?"
                + java.util.Base64.getEncoder()
                    .encodeToString(region.getBytes(StandardCharsets.UTF_8))
                + "?=");
    assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
    JsonNode sc = message(first.body()).path("result").path("structuredContent");
    assertThat(sc.path("status").asText()).as(first.body()).isEqualTo("pending_confirmation");
    String id = sc.path("actionId").asText();
    assertThat(app.servlet.writes).as("nothing ran while pending").hasValue(0);

    Confirmations.Outcome o =
        app.filter
            .gate()
            .confirmations()
            .confirm(
                new ExecutionId(id), name -> "Authorization".equalsIgnoreCase(name) ? ALICE : null)
            .toCompletableFuture()
            .get(10, TimeUnit.SECONDS);
    assertThat(o).as(String.valueOf(o)).isInstanceOf(Confirmations.Execute.class);
    Execution done =
        app.filter
            .self()
            .send((Confirmations.Execute) o, ALICE)
            .toCompletableFuture()
            .get(30, TimeUnit.SECONDS);

    assertThat(app.servlet.headerMismatches).isEmpty();
    assertThat(app.servlet.regions).containsExactly(region);
    assertThat(done.state()).isEqualTo(ExecutionState.COMPLETED_NOT_DELIVERED);
    assertThat(app.servlet.writes).as("ran once").hasValue(1);
  }

  /** The JSON-RPC message of a JSON or {@code text/event-stream} answer. */
  private static JsonNode message(String body) throws Exception {
    if (body.startsWith("{")) {
      return JSON.readTree(body);
    }
    StringBuilder data = new StringBuilder();
    for (String line : body.split("\\r?\\n")) {
      if (line.startsWith("data:")) {
        data.append(line.substring(5).trim());
      }
    }
    return JSON.readTree(data.toString());
  }
}
