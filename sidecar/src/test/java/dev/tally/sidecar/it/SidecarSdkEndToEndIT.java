package dev.tally.sidecar.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.core.contract.ToolClass;
import dev.tally.sidecar.Sidecar;
import dev.tally.sidecar.SidecarOptions;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import io.vertx.core.Vertx;
import java.io.BufferedReader;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** MCP Java SDK client → sidecar → MCP Java SDK server, all real, in one JVM. */
class SidecarSdkEndToEndIT {
  private Vertx vertx;
  private SdkUpstream upstream;
  private FakeGate gate;
  private Sidecar sidecar;
  private String url;

  @BeforeEach
  void start() throws Exception {
    vertx =
        Vertx.vertx(
            SidecarOptions.builder(URI.create("http://x/")).eventLoops(2).build().vertxOptions());
    upstream = new SdkUpstream();
    gate = new FakeGate();
    SidecarOptions options = SidecarOptions.builder(URI.create(upstream.url())).port(0).build();
    sidecar =
        Sidecar.start(vertx, options, gate, Clock.systemUTC())
            .toCompletionStage()
            .toCompletableFuture()
            .get(10, TimeUnit.SECONDS);
    url = "http://127.0.0.1:" + sidecar.port() + "/mcp";
  }

  @AfterEach
  void stop() throws Exception {
    sidecar.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    upstream.close();
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  private McpSyncClient sdkClient() {
    McpSyncClient c =
        McpClient.sync(HttpClientStreamableHttpTransport.builder(url).build())
            .requestTimeout(Duration.ofSeconds(15))
            .build();
    c.initialize();
    return c;
  }

  @Test
  void sdkClientListsCallsReadAndWriteToolsThroughTheSidecar() {
    try (McpSyncClient client = sdkClient()) {
      McpSchema.ListToolsResult tools = client.listTools();
      assertThat(tools.tools())
          .extracting(McpSchema.Tool::name)
          .contains("create_ticket", "get_ticket");
      assertThat(gate.contracts.resolve("get_ticket").toolClass()).isEqualTo(ToolClass.READ_ONLY);
      assertThat(gate.contracts.resolve("create_ticket").toolClass())
          .isEqualTo(ToolClass.IRREVERSIBLE);

      McpSchema.CallToolResult read =
          client.callTool(
              McpSchema.CallToolRequest.builder("get_ticket")
                  .arguments(Map.of("id", "T-9"))
                  .build());
      assertThat(((McpSchema.TextContent) read.content().get(0)).text()).isEqualTo("ticket T-9");
      assertThat(upstream.idempotencyKeys).isEmpty();

      McpSchema.CallToolResult write =
          client.callTool(
              McpSchema.CallToolRequest.builder("create_ticket")
                  .arguments(Map.of("title", "printer"))
                  .build());
      assertThat(((McpSchema.TextContent) write.content().get(0)).text())
          .isEqualTo("ticket T-1 created: printer");
    }
    assertThat(upstream.sideEffects).hasValue(1);
    assertThat(upstream.idempotencyKeys).hasSize(1);
    String executionId = upstream.idempotencyKeys.get(0);
    assertThat(executionId).startsWith("act_");
    assertThat(upstream.executionIdsSeenByTool).containsExactly(executionId);
    // No tracer and no incoming trace: a new, unsampled trace (nothing claims to record it).
    assertThat(upstream.traceparents.get(0)).matches("00-[0-9a-f]{32}-[0-9a-f]{16}-00");
    assertThat(gate.reports).startsWith("completed:200");
    assertThat(gate.firstDelivered).succeedsWithin(Duration.ofSeconds(20));
    assertThat(gate.reports).contains("delivered");
  }

  @Test
  void retryAfterACutResponseIsReplayedNotReExecuted() throws Exception {
    RawMcp raw = new RawMcp(url).initialize();
    upstream.hold = new CountDownLatch(1);
    String call = RawMcp.call(5, "create_ticket", "{\"title\":\"cut\"}");
    HttpResponse<InputStream> first = raw.postStream(call);
    assertThat(first.statusCode()).isEqualTo(200);
    BufferedReader in = RawMcp.reader(first);
    List<RawMcp.Event> priming = RawMcp.read(in, 1);
    assertThat(priming).hasSize(1);
    assertThat(priming.get(0).data()).isEmpty();
    assertThat(upstream.entered.await(10, TimeUnit.SECONDS)).isTrue();
    first.body().close();
    upstream.hold.countDown();
    assertThat(gate.firstSettled).succeedsWithin(Duration.ofSeconds(10));

    HttpResponse<String> retry = raw.post(RawMcp.call(6, "create_ticket", "{\"title\":\"cut\"}"));
    assertThat(retry.statusCode()).isEqualTo(200);
    String result = retry.body();
    assertThat(result)
        .contains("\"id\":6")
        .contains("dev.tally/replay")
        .contains("ticket T-1 created: cut");
    assertThat(upstream.sideEffects).hasValue(1);
  }

  @Test
  void concurrentIdenticalCallsExecuteOnceAndAllGetTheResult() throws Exception {
    RawMcp raw = new RawMcp(url).initialize();
    upstream.hold = new CountDownLatch(1);
    int n = 32;
    List<CompletableFuture<HttpResponse<String>>> all = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      all.add(raw.postAsync(RawMcp.call(100 + i, "create_ticket", "{\"title\":\"same\"}")));
    }
    assertThat(upstream.entered.await(10, TimeUnit.SECONDS)).isTrue();
    // Release the tool only once every call has reached the gate, so all of them overlap it.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (gate.admitted.get() < n && System.nanoTime() < deadline) {
      java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
    }
    assertThat(gate.admitted).hasValue(n);
    upstream.hold.countDown();
    for (int i = 0; i < n; i++) {
      HttpResponse<String> r = all.get(i).get(15, TimeUnit.SECONDS);
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.body()).contains("\"id\":" + (100 + i)).contains("ticket T-1 created: same");
    }
    assertThat(upstream.sideEffects).hasValue(1);
    assertThat(upstream.idempotencyKeys).hasSize(1);
  }
}
