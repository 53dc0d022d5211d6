package dev.tally.filter;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tally.core.config.ConfigOverrides;
import dev.tally.core.config.TallyConfig;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.testing.MutableClock;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 18, 2026-07-28 era, through the servlet filter: the same core path as the sidecar (no
 * adapter code of its own) offers a pending confirmation as an input-required result with a
 * URL-mode elicitation, verifies Tally's {@code requestState} on the follow-up, and answers the
 * follow-up from the execution. The app behind (the MCP Java SDK's servlet, a 2025 server) is never
 * reached: every answer here is Tally's.
 */
class FilterConfirmElicitationIT {
  private static final String ALICE = "Bearer alice-filter-token-0123";
  private static final String BOB = "Bearer bob-filter-token-0123";
  private static final String ADMIN = "filter-admin-token-0123456789abcdef";

  private final HttpClient http = HttpClient.newHttpClient();
  private final MutableClock clock = MutableClock.at(Instant.now());
  private SdkApp app;

  @BeforeEach
  void start() throws Exception {
    TallyConfig config =
        TallyConfig.parse(
            "store: memory\n"
                + "confirmation:\n  url: https://app.example.com/tally\n  expiry: 10m\n"
                + "tools:\n  "
                + SdkApp.WRITE
                + ":\n    confirmationRequired: true\n",
            "test",
            ConfigOverrides.none());
    app = SdkApp.withAdmin(config, ADMIN, clock);
  }

  @AfterEach
  void stop() throws Exception {
    app.close();
  }

  /** A 2026-07-28 {@code tools/call} from a client declaring URL-mode elicitation. */
  private static ObjectNode modernCall(String message) {
    ObjectNode o = RawMcp.toolCall(SdkApp.WRITE, message);
    ObjectNode meta = ((ObjectNode) o.path("params")).putObject("_meta");
    meta.put("io.modelcontextprotocol/protocolVersion", "2026-07-28");
    meta.putObject("io.modelcontextprotocol/clientCapabilities")
        .putObject("elicitation")
        .putObject("url");
    return o;
  }

  private static ObjectNode followUp(ObjectNode first, String action, String state) {
    ObjectNode o = first.deepCopy();
    o.put("id", RawMcp.request("x").path("id").asInt());
    ObjectNode p = (ObjectNode) o.path("params");
    p.putObject("inputResponses").putObject(action).put("action", "accept");
    p.put("requestState", state);
    return o;
  }

  private JsonNode send(ObjectNode call, String authorization) throws Exception {
    RawMcp raw = new RawMcp(app.endpoint());
    return RawMcp.responseOf(
        raw.post(
            call.toString(),
            Map.of(
                "Authorization",
                authorization,
                "MCP-Protocol-Version",
                "2026-07-28",
                "Mcp-Method",
                "tools/call",
                "Mcp-Name",
                SdkApp.WRITE)));
  }

  @Test
  void theFilterOffersTheConfirmationAsAnElicitationAndAnswersTheFollowUpFromTheExecution()
      throws Exception {
    ObjectNode call = modernCall("elicit-" + UUID.randomUUID());
    JsonNode first = send(call, ALICE);
    JsonNode result = first.path("result");
    assertThat(result.path("resultType").asText()).as(first.toString()).isEqualTo("input_required");
    String action = result.path("_meta").path("dev.tally/pending").path("actionId").asText();
    JsonNode ask = result.path("inputRequests").path(action).path("params");
    assertThat(ask.path("mode").asText()).isEqualTo("url");
    assertThat(ask.path("url").asText())
        .isEqualTo("https://app.example.com/tally/console/actions/" + action);
    String state = result.path("requestState").asText();

    JsonNode again = send(followUp(call, action, state), ALICE);
    assertThat(again.path("result").path("resultType").asText()).isEqualTo("input_required");
    assertThat(again.path("result").path("inputRequests").has(action)).isTrue();

    JsonNode stolen = send(followUp(call, action, state), BOB);
    assertThat(stolen.path("error").path("data").path("tally").path("code").asText())
        .as(stolen.toString())
        .isEqualTo("REQUEST_STATE_INVALID");

    HttpResponse<String> cancel =
        http.send(
            HttpRequest.newBuilder(app.admin("/v1/actions/" + action + "/cancel"))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .header("Authorization", ALICE)
                .POST(HttpRequest.BodyPublishers.ofString("{}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(cancel.statusCode()).as(cancel.body()).isEqualTo(200);
    JsonNode decided = send(followUp(call, action, state), ALICE);
    assertThat(decided.path("result").path("structuredContent").path("tally").path("code").asText())
        .as(decided.toString())
        .isEqualTo("CONFIRMATION_CANCELLED");
    assertThat(
            app.filter
                .gate()
                .store()
                .find(new ExecutionId(action))
                .toCompletableFuture()
                .join()
                .orElseThrow()
                .state())
        .isEqualTo(ExecutionState.CANCELLED);
    assertThat(app.writes.get()).as("the app never ran the call").isZero();
  }
}
