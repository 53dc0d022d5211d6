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
    startReal(options, ContractRegistry.defaults());
  }

  private void startReal(SidecarOptions options, ContractRegistry contracts) throws Exception {
    store = MemoryExecutionStore.create();
    gate =
        Gate.builder(
                store,
                KeyRing.of(
                    HmacKey.of(
                        "k1",
                        "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII))))
            .options(GateOptions.defaults("modern"))
            .contracts(contracts)
            .actors(h -> "actor")
            .clock(Clock.systemUTC())
            .build();
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
  void anUpstreamTimeoutIsToldAsAnUnknownOutcomeAtOnce() throws Exception {
    // 3 s, not less: the timeout runs from dispatch, and on a busy machine a shorter one ran out
    // before the request reached the upstream (502, nothing sent) instead of after (unknown).
    startFake(options(upstream.url()).upstreamTimeout(Duration.ofSeconds(3)).build());
    HttpResponse<String> r = post("tools/call", "slow", call(5, "slow", "{}", ""));
    // The tool result a retry gets, not a transport error: an SDK returns it to the agent.
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    assertThat(r.body())
        .contains("\"code\":\"OUTCOME_UNKNOWN\"")
        .contains("\"isError\":true")
        .contains("\"id\":5");
    assertThat(fake.firstSettled).succeedsWithin(Duration.ofSeconds(20));
    assertThat(fake.reports).containsExactly("unknown");
  }

  @Test
  void upstream5xxIsAnUnknownOutcome() throws Exception {
    startFake(options(upstream.url()).build());
    HttpResponse<String> r = post("tools/call", "boom", call(6, "boom", "{}", ""));
    assertThat(r.statusCode()).isEqualTo(500);
    assertThat(fake.firstSettled).succeedsWithin(Duration.ofSeconds(20));
    assertThat(fake.reports).containsExactly("unknown");
  }

  @Test
  void unreachableUpstreamIs502AndFailsBeforeEffect() throws Exception {
    startFake(
        options("http://127.0.0.1:1/mcp").upstreamConnectTimeout(Duration.ofSeconds(2)).build());
    HttpResponse<String> r = post("tools/call", "deploy", call(7, "deploy", "{}", ""));
    assertThat(r.statusCode()).isEqualTo(502);
    assertThat(r.body()).contains("UPSTREAM_UNAVAILABLE").contains("nothing was sent");
    assertThat(fake.firstSettled).succeedsWithin(Duration.ofSeconds(20));
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

  /** The contracts of a {@code tools:} configuration section. */
  private static ContractRegistry contracts(String yaml) {
    return dev.tally.core.config.TallyConfig.parse(
            yaml, "test", dev.tally.core.config.ConfigOverrides.none())
        .tools()
        .newRegistry();
  }

  /** Sends a 2026-07-28 {@code tools/call} on a raw connection and returns it, still open. */
  private java.net.Socket sendRaw(int id, String tool) throws Exception {
    URI u = URI.create(url);
    java.net.Socket socket = new java.net.Socket(u.getHost(), u.getPort());
    byte[] body = call(id, tool, "{}", "").getBytes(StandardCharsets.UTF_8);
    String head =
        "POST "
            + u.getPath()
            + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + "Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n"
            + "Mcp-Method: tools/call\r\nMcp-Name: "
            + tool
            + "\r\nContent-Length: "
            + body.length
            + "\r\n\r\n";
    socket.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
    socket.getOutputStream().write(body);
    socket.getOutputStream().flush();
    return socket;
  }

  private static void awaitTrue(java.util.function.BooleanSupplier c, String what)
      throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!c.getAsBoolean()) {
      assertThat(System.nanoTime() - end).as(what).isNegative();
      Thread.sleep(5);
    }
  }

  private java.util.List<dev.tally.core.execution.Execution> executions() {
    return store
        .list(new dev.tally.core.store.ExecutionQuery(null, null, null, null, 50))
        .toCompletableFuture()
        .join()
        .items();
  }

  /**
   * A closed response stream means cancel for a tool whose contract says so: the sidecar resets the
   * upstream request at once, while the upstream is still working (it did not wait for the
   * upstream's answer to notice), and records the outcome as unknown.
   */
  @Test
  void aClientThatClosesMidCallCancelsAToolWhoseContractSaysCancel() throws Exception {
    ContractRegistry contracts = contracts("tools:\n  slow:\n    onDisconnect: cancel\n");
    startReal(options(upstream.url()).upstreamTimeout(Duration.ofSeconds(30)).build(), contracts);
    java.net.Socket client = sendRaw(8, "slow");
    awaitTrue(() -> upstream.posts.get() == 1, "the call reached the upstream");
    client.close(); // the 2026-07-28 client closes its response stream
    awaitTrue(() -> upstream.cancelled.get() == 1, "the upstream request was reset");
    awaitTrue(
        () ->
            executions().size() == 1
                && executions().get(0).state()
                    == dev.tally.core.execution.ExecutionState.OUTCOME_UNKNOWN,
        "the execution is outcome_unknown: " + executions());
  }

  /** The same for a read-only call, which passes without the gate: nothing is recorded. */
  @Test
  void aClientThatClosesMidCallCancelsAReadOnlyCallThatPassesThrough() throws Exception {
    ContractRegistry contracts = contracts("tools:\n  slow:\n    class: read_only\n");
    startReal(options(upstream.url()).upstreamTimeout(Duration.ofSeconds(30)).build(), contracts);
    java.net.Socket client = sendRaw(11, "slow");
    awaitTrue(() -> upstream.posts.get() == 1, "the call reached the upstream");
    client.close();
    awaitTrue(() -> upstream.cancelled.get() == 1, "the upstream request was reset");
    assertThat(executions()).isEmpty();
  }

  /**
   * By default a non-read-only tool finishes: the upstream is not interrupted, its result is stored
   * (not delivered), and the client's retry gets it replayed without a second effect.
   */
  @Test
  void aClientThatClosesMidCallLetsAToolFinishByDefaultAndTheRetryGetsTheResult() throws Exception {
    startReal(options(upstream.url()).build());
    java.net.Socket client = sendRaw(9, "brew");
    awaitTrue(() -> upstream.posts.get() == 1, "the call reached the upstream");
    client.close();
    awaitTrue(
        () ->
            executions().size() == 1
                && executions().get(0).state()
                    == dev.tally.core.execution.ExecutionState.COMPLETED_NOT_DELIVERED,
        "the execution completed without delivery: " + executions());
    assertThat(upstream.cancelled).hasValue(0);
    HttpResponse<String> retry = post("tools/call", "brew", call(10, "brew", "{}", ""));
    assertThat(retry.body()).contains("\"id\":10").contains("brewed").contains("dev.tally/replay");
    assertThat(upstream.effects).hasValue(1);
    assertThat(upstream.posts).hasValue(1);
  }
}
