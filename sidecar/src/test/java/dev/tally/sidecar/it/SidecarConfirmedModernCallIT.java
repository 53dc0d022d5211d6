package dev.tally.sidecar.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tally.core.config.ConfigOverrides;
import dev.tally.core.config.TallyConfig;
import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.fingerprint.HmacKey;
import dev.tally.core.fingerprint.KeyRing;
import dev.tally.core.gate.Confirmations;
import dev.tally.core.gate.Gate;
import dev.tally.core.gate.GateOptions;
import dev.tally.core.store.MemoryExecutionStore;
import dev.tally.sidecar.Sidecar;
import dev.tally.sidecar.SidecarOptions;
import dev.tally.sidecar.internal.upstream.ConfirmedCalls;
import io.vertx.core.Vertx;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 18: a 2026-07-28 call its person confirmed is sent by the sidecar itself exactly as its
 * client would have sent it, the tool's {@code x-mcp-header} parameter included, to an upstream
 * that validates the mirrored headers on its own ({@link ModernUpstream}).
 */
class SidecarConfirmedModernCallIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String META =
      "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}";

  private final HttpClient http = HttpClient.newHttpClient();
  private Vertx vertx;
  private ModernUpstream upstream;
  private MemoryExecutionStore store;
  private Gate gate;
  private Sidecar sidecar;
  private ConfirmedCalls confirmed;
  private SidecarOptions options;

  @BeforeEach
  void start() throws Exception {
    vertx = Vertx.vertx();
    upstream = new ModernUpstream(vertx);
    TallyConfig config =
        TallyConfig.parse(
            "store: memory\ntools:\n  default:\n    confirmationRequired: true\n  deploy:\n"
                + "    confirmationRequired: true\n",
            "test",
            ConfigOverrides.none());
    store = MemoryExecutionStore.create();
    gate =
        Gate.builder(
                store,
                KeyRing.of(
                    HmacKey.of(
                        "k1",
                        "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII))))
            .options(GateOptions.defaults("modern"))
            .contracts(config.tools().newRegistry())
            .confirmation(config.confirmation())
            .actors(h -> "alice")
            .clock(Clock.systemUTC())
            .build();
    options = SidecarOptions.builder(URI.create(upstream.url())).port(0).build();
    sidecar =
        Sidecar.start(vertx, options, gate)
            .toCompletionStage()
            .toCompletableFuture()
            .get(10, TimeUnit.SECONDS);
    confirmed = ConfirmedCalls.create(vertx, options);
  }

  @AfterEach
  void stop() throws Exception {
    confirmed.close();
    sidecar.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    gate.close();
    store.close();
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  private HttpResponse<String> post(String to, String method, String body, String... headers)
      throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(to))
            .timeout(Duration.ofSeconds(15))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", "2026-07-28")
            .header("Mcp-Method", method)
            .POST(HttpRequest.BodyPublishers.ofString(body));
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private String sidecarUrl() {
    return "http://127.0.0.1:" + sidecar.port() + "/mcp";
  }

  private static String deploy(int id, String region) {
    return "{\"jsonrpc\":\"2.0\",\"id\":"
        + id
        + ",\"method\":\"tools/call\",\"params\":{\"name\":\"deploy\",\"arguments\":{\"region\":\""
        + region
        + "\",\"version\":\"7\"},"
        + META
        + "}}";
  }

  @Test
  void theUpstreamRefusesADeployWithoutItsParameterHeader() throws Exception {
    // The control: the upstream really checks, so the confirmed call below could fail.
    HttpResponse<String> r =
        post(upstream.url(), "tools/call", deploy(1, "eu-west"), "Mcp-Name", "deploy");
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(upstream.headerMismatches).containsExactly("Mcp-Param-Region missing");
    assertThat(upstream.effects).hasValue(0);
  }

  @Test
  void aConfirmedModernCallCarriesTheHeadersItsClientSent() throws Exception {
    HttpResponse<String> list =
        post(
            sidecarUrl(),
            "tools/list",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{" + META + "}}");
    assertThat(list.statusCode()).isEqualTo(200);
    String region = "eu-w\u00e9st";
    HttpResponse<String> first =
        post(
            sidecarUrl(),
            "tools/call",
            deploy(2, region),
            "Mcp-Name",
            "deploy",
            "Mcp-Param-Region",
            "=?base64?"
                + java.util.Base64.getEncoder()
                    .encodeToString(region.getBytes(StandardCharsets.UTF_8))
                + "?=");
    assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
    JsonNode sc = JSON.readTree(first.body()).path("result").path("structuredContent");
    assertThat(sc.path("status").asText()).as(first.body()).isEqualTo("pending_confirmation");
    String id = sc.path("actionId").asText();
    assertThat(upstream.effects).as("nothing ran while pending").hasValue(0);

    Confirmations.Outcome o =
        gate.confirmations()
            .confirm(new ExecutionId(id), name -> null)
            .toCompletableFuture()
            .get(10, TimeUnit.SECONDS);
    assertThat(o).isInstanceOf(Confirmations.Execute.class);
    Confirmations.Execute run = (Confirmations.Execute) o;
    assertThat(run.headers()).containsKey("Mcp-Param-region");
    Execution done =
        confirmed
            .send(run, null)
            .toCompletionStage()
            .toCompletableFuture()
            .get(30, TimeUnit.SECONDS);

    assertThat(upstream.headerMismatches).isEmpty();
    assertThat(done.state()).isEqualTo(ExecutionState.COMPLETED_NOT_DELIVERED);
    assertThat(upstream.effects).hasValue(1);
    assertThat(upstream.idempotencyKeys).containsExactly(id);
  }

  @Test
  void aContractThatChangedBeforeTheConfirmRejectsTheActionAndTheRetryGetsThat() throws Exception {
    String ask =
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"ask\","
            + "\"arguments\":{\"q\":1},"
            + META
            + "}}";
    HttpResponse<String> first = post(sidecarUrl(), "tools/call", ask, "Mcp-Name", "ask");
    JsonNode sc = JSON.readTree(first.body()).path("result").path("structuredContent");
    assertThat(sc.path("status").asText()).as(first.body()).isEqualTo("pending_confirmation");
    String id = sc.path("actionId").asText();
    // The upstream now lists ask as read-only: the default's confirmation no longer applies.
    gate.contracts().learnAnnotations("ask", true, null);

    Confirmations.Outcome o =
        gate.confirmations()
            .confirm(new ExecutionId(id), name -> null)
            .toCompletableFuture()
            .get(10, TimeUnit.SECONDS);
    assertThat(o).isInstanceOf(Confirmations.Refused.class);
    Confirmations.Refused r = (Confirmations.Refused) o;
    assertThat(r.error().code()).isEqualTo(dev.tally.core.mcp.TallyError.Code.CONTRACT_CHANGED);
    assertThat(r.execution().state()).isEqualTo(ExecutionState.REJECTED);

    gate.contracts().learnAnnotations("ask", null, null);
    HttpResponse<String> retry = post(sidecarUrl(), "tools/call", ask, "Mcp-Name", "ask");
    JsonNode again = JSON.readTree(retry.body());
    assertThat(retry.body()).as("the decision, never a new approval").contains("REJECTED");
    assertThat(again.path("result").path("structuredContent").path("status").asText())
        .isNotEqualTo("pending_confirmation");
    assertThat(upstream.effects).as("nothing ran").hasValue(0);
  }
}
