package dev.tally.filter;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.store.ExecutionQuery;
import dev.tally.core.store.MemoryExecutionStore;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The filter in front of the MCP Java SDK's servlet transport, driven by real clients. */
class FilterMcpSdkIT {
  private WatchedStore store;
  private SdkApp app;
  private McpSyncClient client;

  @BeforeEach
  void start() throws Exception {
    store = new WatchedStore(MemoryExecutionStore.create());
    app = SdkApp.withFilter(store, FilterSettings.defaults());
  }

  @AfterEach
  void stop() throws Exception {
    if (client != null) {
      client.closeGracefully();
    }
    app.close();
  }

  @Test
  void sdkClientWriteRunsOnceAndIsRecordedAsDelivered() throws Exception {
    McpSchema.CallToolResult r = sdk().callTool(call(SdkApp.WRITE, Map.of("message", "hello")));

    assertThat(text(r)).isEqualTo("ticket T-1 for hello");
    assertThat(app.writes.get()).isEqualTo(1);
    assertThat(awaitState(SdkApp.WRITE, ExecutionState.DELIVERED).tool()).isEqualTo(SdkApp.WRITE);
  }

  @Test
  void readOnlyToolLearnedFromToolsListIsNeitherGatedNorRecorded() throws Exception {
    McpSyncClient c = sdk();
    c.listTools();
    c.callTool(call(SdkApp.READ, Map.of("message", "a")));
    McpSchema.CallToolResult second = c.callTool(call(SdkApp.READ, Map.of("message", "a")));

    assertThat(text(second)).isEqualTo("read #2");
    assertThat(app.records(SdkApp.READ)).isZero();
  }

  @Test
  void dispatchedCallCarriesTheExecutionIdAsHeaderAttributeAndMeta() throws Exception {
    sdk().callTool(call(SdkApp.WRITE, Map.of("message", "ids")));

    List<String> seen = app.seen.peek();
    assertThat(seen).hasSize(3);
    assertThat(seen.get(0)).startsWith("act_");
    assertThat(seen).containsOnly(seen.get(0));
    assertThat(awaitState(SdkApp.WRITE, ExecutionState.DELIVERED).id().value())
        .isEqualTo(seen.get(0));
  }

  @Test
  void sameKeyWithOtherArgumentsIsRefusedAndRunsNothing() throws Exception {
    McpSyncClient c = sdk();
    c.callTool(call(SdkApp.WRITE, Map.of("message", "one", "idempotencyKey", "order-17")));
    McpSchema.CallToolResult reused =
        c.callTool(call(SdkApp.WRITE, Map.of("message", "two", "idempotencyKey", "order-17")));

    assertThat(reused.isError()).isTrue();
    assertThat(text(reused)).startsWith("IDEMPOTENCY_KEY_REUSED");
    assertThat(app.writes.get()).isEqualTo(1);
  }

  @Test
  void cutResponseThenRetryWithNewIdReplaysTheResult() throws Exception {
    RawMcp raw = new RawMcp(app.endpoint()).initialize();
    app.writeStarted = new CountDownLatch(1);
    app.releaseWrite = new CountDownLatch(1);
    String message = "cut-" + UUID.randomUUID();
    byte[] body =
        RawMcp.toolCall(SdkApp.WRITE, message).toString().getBytes(StandardCharsets.UTF_8);

    try (Socket s = new Socket("127.0.0.1", app.port())) {
      OutputStream out = s.getOutputStream();
      String head =
          "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
              + "Accept: application/json, text/event-stream\r\n"
              + "Authorization: "
              + RawMcp.AGENT
              + "\r\n"
              + "Mcp-Session-Id: "
              + raw.session.get("Mcp-Session-Id")
              + "\r\nMCP-Protocol-Version: 2025-06-18\r\nContent-Length: "
              + body.length
              + "\r\n\r\n";
      out.write(head.getBytes(StandardCharsets.US_ASCII));
      out.write(body);
      out.flush();
      assertThat(app.writeStarted.await(10, TimeUnit.SECONDS)).isTrue();
      BufferedReader in =
          new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII));
      assertThat(in.readLine()).startsWith("HTTP/1.1 200");
      s.setSoLinger(true, 0); // close with RST: the result can no longer be written
    }
    app.releaseWrite.countDown();
    awaitState(SdkApp.WRITE, ExecutionState.COMPLETED_NOT_DELIVERED);

    ObjectNode retry = RawMcp.toolCall(SdkApp.WRITE, message);
    JsonNode replay = raw.call(retry);

    assertThat(replay.path("id").asLong()).isEqualTo(retry.path("id").asLong());
    assertThat(replay.path("result").path("content").path(0).path("text").asText())
        .isEqualTo("ticket T-1 for " + message);
    assertThat(replay.path("result").path("_meta").path("dev.tally/replay").path("state").asText())
        .isEqualTo("completed_not_delivered");
    assertThat(app.writes.get()).isEqualTo(1);
    // The replay reached the client: the execution is delivered now, not left undelivered.
    awaitState(SdkApp.WRITE, ExecutionState.DELIVERED);
  }

  @Test
  void concurrentIdenticalCallsWithoutAKeyRunOnce() throws Exception {
    RawMcp raw = new RawMcp(app.endpoint()).initialize();
    app.writeStarted = new CountDownLatch(1);
    app.releaseWrite = new CountDownLatch(1);
    String message = "same-" + UUID.randomUUID();
    CompletableFuture<JsonNode> first = callAsync(raw, message);
    assertThat(app.writeStarted.await(10, TimeUnit.SECONDS)).isTrue();
    List<CompletableFuture<JsonNode>> retries = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      retries.add(callAsync(raw, message));
    }
    assertThat(store.waits.tryAcquire(3, 10, TimeUnit.SECONDS)).as("all retries attached").isTrue();
    app.releaseWrite.countDown();

    String text = first.get(20, TimeUnit.SECONDS).path("result").path("content").toString();
    for (CompletableFuture<JsonNode> r : retries) {
      JsonNode answer = r.get(20, TimeUnit.SECONDS);
      assertThat(answer.path("result").path("content").toString()).isEqualTo(text);
      assertThat(answer.path("result").path("_meta").has("dev.tally/replay")).isTrue();
    }
    assertThat(app.writes.get()).isEqualTo(1);
  }

  private static CompletableFuture<JsonNode> callAsync(RawMcp raw, String message) {
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            return raw.call(RawMcp.toolCall(SdkApp.WRITE, message));
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        });
  }

  private static McpSchema.CallToolRequest call(String tool, Map<String, Object> args) {
    return McpSchema.CallToolRequest.builder(tool).arguments(args).build();
  }

  private McpSyncClient sdk() {
    HttpClientStreamableHttpTransport transport =
        HttpClientStreamableHttpTransport.builder(app.baseUrl()).endpoint("/mcp").build();
    client = McpClient.sync(transport).requestTimeout(Duration.ofSeconds(20)).build();
    client.initialize();
    return client;
  }

  private static String text(McpSchema.CallToolResult r) {
    return ((McpSchema.TextContent) r.content().get(0)).text();
  }

  /** Waits (on store changes, not time) until the tool's only execution is in {@code state}. */
  private Execution awaitState(String tool, ExecutionState state) {
    for (int i = 0; i < 20; i++) {
      List<Execution> items =
          store
              .list(new ExecutionQuery(null, tool, null, null, 10))
              .toCompletableFuture()
              .join()
              .items();
      assertThat(items).hasSize(1);
      Execution e = items.get(0);
      if (e.state() == state) {
        return e;
      }
      store.awaitChange(e.id(), e.version(), Duration.ofSeconds(2)).toCompletableFuture().join();
    }
    throw new AssertionError("execution of " + tool + " never reached " + state.wireName());
  }
}
