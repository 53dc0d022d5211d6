package dev.tally.sidecar.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.core.execution.ExecutionId;
import dev.tally.core.execution.ExecutionState;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The production path: SDK client → sidecar → real {@link dev.tally.core.gate.Gate} over the memory
 * store → SDK server.
 */
class SidecarRealGateIT {
  private SidecarHarness h;

  @BeforeEach
  void start() throws Exception {
    h = SidecarHarness.real(b -> b);
  }

  @AfterEach
  void stop() throws Exception {
    h.close();
  }

  private Optional<dev.tally.core.execution.Execution> record(String id) throws Exception {
    return h.store.find(ExecutionId.parse(id)).toCompletableFuture().get(5, TimeUnit.SECONDS);
  }

  private void awaitState(String id, ExecutionState state) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < deadline) {
      Optional<dev.tally.core.execution.Execution> e = record(id);
      if (e.map(x -> x.state() == state).orElse(false)) {
        return;
      }
      if (e.isPresent()) {
        h.store
            .awaitChange(e.get().id(), e.get().version(), Duration.ofMillis(500))
            .toCompletableFuture()
            .get(5, TimeUnit.SECONDS);
      }
    }
    assertThat(record(id).map(e -> e.state())).hasValue(state);
  }

  @Test
  void sdkClientWriteIsDispatchedOnceRecordedAndDelivered() throws Exception {
    try (McpSyncClient client =
        McpClient.sync(HttpClientStreamableHttpTransport.builder(h.url).build())
            .requestTimeout(Duration.ofSeconds(15))
            .build()) {
      client.initialize();
      client.listTools();
      McpSchema.CallToolResult read =
          client.callTool(
              McpSchema.CallToolRequest.builder("get_ticket")
                  .arguments(Map.of("id", "T-3"))
                  .build());
      assertThat(((McpSchema.TextContent) read.content().get(0)).text()).isEqualTo("ticket T-3");
      McpSchema.CallToolResult write =
          client.callTool(
              McpSchema.CallToolRequest.builder("create_ticket")
                  .arguments(Map.of("title", "real"))
                  .build());
      assertThat(((McpSchema.TextContent) write.content().get(0)).text())
          .isEqualTo("ticket T-1 created: real");
    }
    assertThat(h.upstream.readCalls).hasValue(1);
    assertThat(h.upstream.idempotencyKeys).hasSize(1);
    String id = h.upstream.idempotencyKeys.get(0);
    assertThat(h.upstream.executionIdsSeenByTool).containsExactly(id);
    awaitState(id, ExecutionState.DELIVERED);
  }

  @Test
  void retryAfterCutIsReplayedAndConcurrentRetriesAttach() throws Exception {
    RawMcp raw = new RawMcp(h.url).initialize();
    raw.post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
    h.upstream.hold = new CountDownLatch(1);
    HttpResponse<InputStream> first =
        raw.postStream(RawMcp.call(2, "create_ticket", "{\"title\":\"cut\"}"));
    RawMcp.read(RawMcp.reader(first), 1);
    assertThat(h.upstream.entered.await(10, TimeUnit.SECONDS)).isTrue();
    first.body().close();

    // Retries while the first is still running attach to it.
    List<CompletableFuture<HttpResponse<String>>> retries = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      retries.add(raw.postAsync(RawMcp.call(10 + i, "create_ticket", "{\"title\":\"cut\"}")));
    }
    String id = h.upstream.idempotencyKeys.get(0);
    h.upstream.hold.countDown();
    // No wait for completed_not_delivered here: the attached retries may deliver the result
    // before any observer sees that state, so waiting for it would race the retries.
    for (int i = 0; i < retries.size(); i++) {
      HttpResponse<String> r = retries.get(i).get(15, TimeUnit.SECONDS);
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.body()).contains("\"id\":" + (10 + i)).contains("ticket T-1 created: cut");
    }
    HttpResponse<String> late = raw.post(RawMcp.call(50, "create_ticket", "{\"title\":\"cut\"}"));
    assertThat(late.body()).contains("\"id\":50").contains("dev.tally/replay").contains(id);
    assertThat(h.upstream.sideEffects).hasValue(1);
    assertThat(h.upstream.idempotencyKeys).containsExactly(id);
    // The replays reached their clients: the execution is recorded as delivered.
    awaitState(id, ExecutionState.DELIVERED);
  }

  @Test
  void invalidIdempotencyKeyHeaderIsAValidationErrorResultAndNothingIsDispatched()
      throws Exception {
    RawMcp raw = new RawMcp(h.url).initialize();
    int before = h.upstream.posts.get();
    HttpResponse<String> r =
        raw.http.send(
            raw.request(RawMcp.call(3, "create_ticket", "{\"title\":\"k\"}"))
                .header("Idempotency-Key", "x".repeat(300))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    // A value the agent chose: a tool result the SDK hands to the model, not a protocol error.
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body())
        .contains("\"isError\":true")
        .contains("\"code\":\"VALIDATION_ERROR\"")
        .contains("\"reason\":\"INVALID_IDEMPOTENCY_KEY\"")
        .doesNotContain("xxxx");
    assertThat(h.upstream.posts.get()).isEqualTo(before);
    assertThat(h.upstream.sideEffects).hasValue(0);
  }
}
