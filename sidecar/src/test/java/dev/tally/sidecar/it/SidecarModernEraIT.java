package dev.tally.sidecar.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.core.contract.ContractRegistry;
import dev.tally.core.fingerprint.HmacKey;
import dev.tally.core.fingerprint.KeyRing;
import dev.tally.core.gate.Gate;
import dev.tally.core.gate.GateOptions;
import dev.tally.core.store.MemoryExecutionStore;
import dev.tally.sidecar.Sidecar;
import dev.tally.sidecar.SidecarOptions;
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

/** 2026-07-28 requests: header validation against learned schemas, MRTR, upstream failures. */
class SidecarModernEraIT {
  private Vertx vertx;
  private ModernUpstream upstream;
  private final HttpClient http = HttpClient.newHttpClient();
  private Sidecar sidecar;
  private Gate gate;
  private MemoryExecutionStore store;
  private FakeGate fake;
  private String url;

  @BeforeEach
  void start() throws Exception {
    vertx = Vertx.vertx();
    upstream = new ModernUpstream(vertx);
  }

  @AfterEach
  void stop() throws Exception {
    if (sidecar != null) {
      sidecar.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
    if (gate != null) {
      gate.close();
      store.close();
    }
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  private SidecarOptions.Builder options(String upstreamUrl) {
    return SidecarOptions.builder(URI.create(upstreamUrl)).port(0);
  }

  private void startReal(SidecarOptions options) throws Exception {
    store = MemoryExecutionStore.create();
    gate =
        Gate.create(
            GateOptions.defaults("modern"),
            store,
            ContractRegistry.defaults(),
            KeyRing.of(
                HmacKey.of(
                    "k1", "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII))),
            h -> "actor",
            Clock.systemUTC());
    sidecar =
        Sidecar.start(vertx, options, gate)
            .toCompletionStage()
            .toCompletableFuture()
            .get(10, TimeUnit.SECONDS);
    url = "http://127.0.0.1:" + sidecar.port() + "/mcp";
  }

  private void startFake(SidecarOptions options) throws Exception {
    fake = new FakeGate();
    sidecar =
        Sidecar.start(vertx, options, fake, Clock.systemUTC())
            .toCompletionStage()
            .toCompletableFuture()
            .get(10, TimeUnit.SECONDS);
    url = "http://127.0.0.1:" + sidecar.port() + "/mcp";
  }

  private static String meta() {
    return "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}";
  }

  private HttpResponse<String> post(String method, String name, String body, String... headers)
      throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(url))
            .timeout(Duration.ofSeconds(15))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", "2026-07-28")
            .header("Mcp-Method", method)
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (name != null) {
      b.header("Mcp-Name", name);
    }
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> listTools() throws Exception {
    return post(
        "tools/list",
        null,
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{" + meta() + "}}");
  }

  private static String call(int id, String tool, String args, String extra) {
    return "{\"jsonrpc\":\"2.0\",\"id\":"
        + id
        + ",\"method\":\"tools/call\",\"params\":{\"name\":\""
        + tool
        + "\",\"arguments\":"
        + args
        + extra
        + ","
        + meta()
        + "}}";
  }

  @Test
  void learnedHeaderParametersAreValidated() throws Exception {
    startReal(options(upstream.url()).build());
    assertThat(listTools().statusCode()).isEqualTo(200);
    String body = call(2, "deploy", "{\"region\":\"eu-west\",\"version\":\"1\"}", "");
    HttpResponse<String> missing = post("tools/call", "deploy", body);
    assertThat(missing.statusCode()).isEqualTo(400);
    assertThat(missing.body())
        .contains("-32020")
        .containsIgnoringCase("Mcp-Param-Region header is missing");
    HttpResponse<String> wrong = post("tools/call", "deploy", body, "Mcp-Param-Region", "us-east");
    assertThat(wrong.statusCode()).isEqualTo(400);
    assertThat(upstream.effects).hasValue(0);
    HttpResponse<String> ok =
        post("tools/call", "deploy", body, "mcp-param-region", "=?base64?ZXUtd2VzdA==?=");
    assertThat(ok.statusCode()).isEqualTo(200);
    assertThat(ok.body()).contains("deployed");
    assertThat(upstream.effects).hasValue(1);
    assertThat(upstream.idempotencyKeys).hasSize(1);
  }

  @Test
  void inputRequiredLeavesTheExecutionOpenAndTheFollowUpContinuesIt() throws Exception {
    startReal(options(upstream.url()).build());
    HttpResponse<String> first = post("tools/call", "ask", call(3, "ask", "{\"q\":1}", ""));
    assertThat(first.statusCode()).isEqualTo(200);
    assertThat(first.body()).contains("input_required").contains("state-1");
    HttpResponse<String> second =
        post(
            "tools/call",
            "ask",
            call(
                4,
                "ask",
                "{\"q\":1}",
                ",\"inputResponses\":{\"confirm\":{\"action\":\"accept\"}},\"requestState\":\"state-1\""));
    assertThat(second.statusCode()).isEqualTo(200);
    assertThat(second.body()).contains("\"id\":4").contains("answered");
    assertThat(upstream.effects).hasValue(1);
    assertThat(upstream.idempotencyKeys).hasSize(2);
    assertThat(upstream.idempotencyKeys.get(1)).isEqualTo(upstream.idempotencyKeys.get(0));
  }

  @Test
  void upstreamTimeoutIs504AndTheOutcomeUnknown() throws Exception {
    startFake(options(upstream.url()).upstreamTimeout(Duration.ofMillis(300)).build());
    HttpResponse<String> r = post("tools/call", "slow", call(5, "slow", "{}", ""));
    assertThat(r.statusCode()).isEqualTo(504);
    assertThat(r.body()).contains("UPSTREAM_TIMEOUT").contains("\"id\":5");
    assertThat(fake.firstSettled).succeedsWithin(Duration.ofSeconds(5));
    assertThat(fake.reports).containsExactly("unknown");
  }

  @Test
  void upstream5xxIsAnUnknownOutcome() throws Exception {
    startFake(options(upstream.url()).build());
    HttpResponse<String> r = post("tools/call", "boom", call(6, "boom", "{}", ""));
    assertThat(r.statusCode()).isEqualTo(500);
    assertThat(fake.firstSettled).succeedsWithin(Duration.ofSeconds(5));
    assertThat(fake.reports).containsExactly("unknown");
  }

  @Test
  void unreachableUpstreamIs502AndFailsBeforeEffect() throws Exception {
    startFake(
        options("http://127.0.0.1:1/mcp").upstreamConnectTimeout(Duration.ofSeconds(2)).build());
    HttpResponse<String> r = post("tools/call", "deploy", call(7, "deploy", "{}", ""));
    assertThat(r.statusCode()).isEqualTo(502);
    assertThat(r.body()).contains("UPSTREAM_UNAVAILABLE").contains("nothing was sent");
    assertThat(fake.firstSettled).succeedsWithin(Duration.ofSeconds(5));
    assertThat(fake.reports).containsExactly("failedBeforeEffect:0");
  }

  @Test
  void drainRefusesNewRequestsThenCloses() throws Exception {
    startFake(options(upstream.url()).build());
    assertThat(listTools().statusCode()).isEqualTo(200);
    sidecar
        .drain(Duration.ofSeconds(2))
        .toCompletionStage()
        .toCompletableFuture()
        .get(10, TimeUnit.SECONDS);
    assertThat(sidecar.inFlight()).isZero();
    try {
      HttpResponse<String> after = listTools();
      assertThat(after.statusCode()).isEqualTo(503);
    } catch (java.io.IOException refused) {
      // The listener is closed: refused outright is also a correct outcome.
    }
    sidecar = null;
  }
}
