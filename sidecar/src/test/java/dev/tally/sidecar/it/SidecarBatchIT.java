package dev.tally.sidecar.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.execution.ExecutionState;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * JSON-RPC batches from a 2025-03-26 client (raw HTTP: the SDK clients no longer batch) through the
 * sidecar and the real gate to an MCP Java SDK server, which itself refuses batches: every {@code
 * tools/call} inside is gated and dispatched on its own, the answers come back merged.
 */
class SidecarBatchIT {
  private static final String LEGACY = "2025-03-26";
  private static final ObjectMapper JSON = new ObjectMapper();
  private SidecarHarness h;
  private RawMcp raw;

  @BeforeEach
  void start() throws Exception {
    h = SidecarHarness.real(b -> b.maxBatchSize(6));
    raw = new RawMcp(h.url, LEGACY).initialize();
  }

  @AfterEach
  void stop() throws Exception {
    h.close();
  }

  private static String list(int id) {
    return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/list\"}";
  }

  private static String batch(String... elements) {
    return "[" + String.join(",", elements) + "]";
  }

  /** The merged answer by id (ids as JSON text), checking it is a JSON array of responses. */
  private static Map<String, JsonNode> byId(HttpResponse<String> r) throws Exception {
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type")).hasValue("application/json");
    JsonNode arr = JSON.readTree(r.body());
    assertThat(arr.isArray()).isTrue();
    Map<String, JsonNode> out = new HashMap<>();
    for (JsonNode n : arr) {
      assertThat(out.put(n.get("id").toString(), n)).isNull();
    }
    return out;
  }

  private static String text(JsonNode response) {
    return response.path("result").path("content").path(0).path("text").asText();
  }

  private Optional<Execution> record(String id) throws Exception {
    return h.store.find(ExecutionId.parse(id)).toCompletableFuture().get(5, TimeUnit.SECONDS);
  }

  private void awaitState(String id, ExecutionState state) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < deadline) {
      Optional<Execution> e = record(id);
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
    assertThat(record(id).map(Execution::state)).hasValue(state);
  }

  private static void await(String what, BooleanSupplier check) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!check.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting until " + what);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
    }
  }

  /**
   * Keyed calls: a delivered key-less call re-sent is a new action by design (ARCHITECTURE.md §6
   * step 4); a keyed one is the same action.
   */
  @Test
  void batchCallsExecuteOnceEachAndAResentBatchReplaysThem() throws Exception {
    int postsBefore = h.upstream.posts.get();
    Map<String, JsonNode> first =
        byId(
            raw.post(
                batch(
                    RawMcp.call(1, "create_ticket", "{\"title\":\"a\",\"idempotencyKey\":\"k-a\"}"),
                    list(2),
                    RawMcp.call(
                        3, "create_ticket", "{\"title\":\"b\",\"idempotencyKey\":\"k-b\"}"))));
    assertThat(first.keySet()).containsExactlyInAnyOrder("1", "2", "3");
    assertThat(text(first.get("1"))).matches("ticket T-[12] created: a");
    assertThat(text(first.get("3"))).matches("ticket T-[12] created: b");
    assertThat(first.get("2").path("result").path("tools").toString()).contains("create_ticket");
    assertThat(h.upstream.sideEffects).hasValue(2);
    // One upstream POST per element, each call with its own key and trace span.
    assertThat(h.upstream.posts.get() - postsBefore).isEqualTo(3);
    assertThat(h.upstream.idempotencyKeys).hasSize(2).doesNotHaveDuplicates();
    assertThat(h.upstream.traceparents).doesNotHaveDuplicates();
    assertThat(h.upstream.executionIdsSeenByTool)
        .containsExactlyInAnyOrderElementsOf(h.upstream.idempotencyKeys);
    for (String key : h.upstream.idempotencyKeys) {
      awaitState(key, ExecutionState.DELIVERED);
    }

    Map<String, JsonNode> again =
        byId(
            raw.post(
                batch(
                    RawMcp.call(
                        11, "create_ticket", "{\"title\":\"a\",\"idempotencyKey\":\"k-a\"}"),
                    list(12),
                    RawMcp.call(
                        13, "create_ticket", "{\"title\":\"b\",\"idempotencyKey\":\"k-b\"}"))));
    assertThat(again.keySet()).containsExactlyInAnyOrder("11", "12", "13");
    assertThat(text(again.get("11"))).isEqualTo(text(first.get("1")));
    assertThat(text(again.get("13"))).isEqualTo(text(first.get("3")));
    for (String id : List.of("11", "13")) {
      assertThat(again.get(id).path("result").path("_meta").has("dev.tally/replay")).isTrue();
    }
    assertThat(h.upstream.sideEffects).hasValue(2);
    assertThat(h.upstream.idempotencyKeys).hasSize(2);
  }

  @Test
  void batchCallsAreDispatchedConcurrently() throws Exception {
    h.upstream.hold = new CountDownLatch(1);
    h.upstream.entered = new CountDownLatch(2);
    CompletableFuture<HttpResponse<String>> pending =
        raw.postAsync(
            batch(
                RawMcp.call(1, "create_ticket", "{\"title\":\"x\"}"),
                RawMcp.call(2, "create_ticket", "{\"title\":\"y\"}")));
    // Both calls are inside the tool at once: neither waited for the other.
    assertThat(h.upstream.entered.await(10, TimeUnit.SECONDS)).isTrue();
    h.upstream.hold.countDown();
    assertThat(byId(pending.get(15, TimeUnit.SECONDS)).keySet())
        .containsExactlyInAnyOrder("1", "2");
    assertThat(h.upstream.sideEffects).hasValue(2);
  }

  @Test
  void batchCallDuplicatingAnInFlightSingleCallAttachesToIt() throws Exception {
    h.upstream.hold = new CountDownLatch(1);
    RawMcp single = new RawMcp(h.url, LEGACY);
    single.session = raw.session;
    CompletableFuture<HttpResponse<String>> running =
        single.postAsync(RawMcp.call(1, "create_ticket", "{\"title\":\"same\"}"));
    assertThat(h.upstream.entered.await(10, TimeUnit.SECONDS)).isTrue();
    CompletableFuture<HttpResponse<String>> batched =
        raw.postAsync(
            batch(
                RawMcp.call(7, "create_ticket", "{\"title\":\"same\"}"),
                "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"ping\"}"));
    await("the batch's call attached to the running one", () -> h.gateWaits.get() == 1);
    assertThat(batched).isNotDone();
    h.upstream.hold.countDown();
    assertThat(running.get(15, TimeUnit.SECONDS).body()).contains("ticket T-1 created: same");
    Map<String, JsonNode> merged = byId(batched.get(15, TimeUnit.SECONDS));
    assertThat(text(merged.get("7"))).isEqualTo("ticket T-1 created: same");
    assertThat(merged.get("7").path("result").path("_meta").has("dev.tally/replay")).isTrue();
    assertThat(merged.get("8").has("result")).isTrue();
    assertThat(h.upstream.sideEffects).hasValue(1);
    assertThat(h.upstream.idempotencyKeys).hasSize(1);
  }

  @Test
  void badElementsGetTheirOwnErrorsWhileTheRestRun() throws Exception {
    Map<String, JsonNode> merged =
        byId(
            raw.post(
                batch(
                    RawMcp.call(1, "create_ticket", "{\"title\":\"ok\"}"),
                    "42",
                    "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":"
                        + "{\"name\":\"create_ticket\",\"name\":\"get_ticket\"}}",
                    "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\",\"method\":\"tools/call\","
                        + "\"params\":{\"name\":\"create_ticket\"}}",
                    "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{}}",
                    "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"ping\"}")));
    assertThat(merged.keySet()).containsExactlyInAnyOrder("1", "null", "3", "4", "5", "6");
    assertThat(text(merged.get("1"))).isEqualTo("ticket T-1 created: ok");
    assertThat(merged.get("null").path("error").path("message").asText())
        .isEqualTo("batch element 1: not a JSON-RPC object");
    assertThat(merged.get("3").path("error").path("message").asText())
        .contains("duplicate member \"params.name\"");
    assertThat(merged.get("4").path("error").path("message").asText())
        .contains("duplicate member \"method\"");
    assertThat(merged.get("5").path("error").path("message").asText())
        .contains("params.name: expected a non-empty string");
    for (String id : List.of("null", "3", "4", "5")) {
      assertThat(merged.get(id).path("error").path("code").asInt()).isEqualTo(-32600);
    }
    assertThat(merged.get("6").has("result")).isTrue();
    assertThat(h.upstream.sideEffects).hasValue(1);
  }

  @Test
  void ambiguousOversizedEmptyAndLaterVersionBatchesAreRefusedWhole() throws Exception {
    int postsBefore = h.upstream.posts.get();
    String call = RawMcp.call(1, "create_ticket", "{\"title\":\"no\"}");
    HttpResponse<String> empty = raw.post("[]");
    assertThat(empty.statusCode()).isEqualTo(400);
    assertThat(empty.body()).contains("-32600").contains("empty batch");
    HttpResponse<String> dup =
        raw.post(batch(call, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"));
    assertThat(dup.statusCode()).isEqualTo(400);
    assertThat(dup.body()).contains("elements 0 and 1").contains("share one JSON-RPC id");
    HttpResponse<String> big =
        raw.post(batch(call, list(2), list(3), list(4), list(5), list(6), list(7)));
    assertThat(big.statusCode()).isEqualTo(400);
    assertThat(big.body()).contains("sidecar.maxBatchSize (6)");
    RawMcp later = new RawMcp(h.url, "2025-06-18");
    later.session = raw.session;
    HttpResponse<String> removed = later.post(batch(call));
    assertThat(removed.statusCode()).isEqualTo(400);
    assertThat(removed.body()).contains("-32600").contains("from 2025-06-18 on");
    assertThat(h.upstream.posts.get()).isEqualTo(postsBefore);
    assertThat(h.upstream.sideEffects).hasValue(0);
  }

  @Test
  void notificationsOnlyBatchIsAcceptedWith202() throws Exception {
    HttpResponse<String> r =
        raw.post(
            batch(
                "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
                "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/roots/list_changed\"}"));
    assertThat(r.statusCode()).isEqualTo(202);
    assertThat(r.body()).isEmpty();
  }

  @Test
  void clientGoneBeforeTheMergedAnswerLeavesCallsUndeliveredAndASingleRetryReplays()
      throws Exception {
    h.upstream.hold = new CountDownLatch(1);
    h.upstream.entered = new CountDownLatch(2);
    byte[] body =
        batch(
                RawMcp.call(1, "create_ticket", "{\"title\":\"cut-a\"}"),
                RawMcp.call(2, "create_ticket", "{\"title\":\"cut-b\"}"))
            .getBytes(StandardCharsets.UTF_8);
    try (Socket s = new Socket("127.0.0.1", h.sidecar.port())) {
      OutputStream out = s.getOutputStream();
      out.write(
          ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                  + "Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: "
                  + LEGACY
                  + "\r\nMcp-Session-Id: "
                  + raw.session
                  + "\r\nContent-Length: "
                  + body.length
                  + "\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.write(body);
      out.flush();
      assertThat(h.upstream.entered.await(10, TimeUnit.SECONDS)).isTrue();
      // The connection dies (reset), as the failure does. A plain close (FIN) only
      // half-closes it: if the sidecar handled the answers before the FIN, in the same event-loop
      // round, the kernel still took the write and the calls counted as delivered (flaky).
      s.setSoLinger(true, 0);
    }
    h.upstream.hold.countDown();
    assertThat(h.upstream.idempotencyKeys).hasSize(2);
    for (String key : h.upstream.idempotencyKeys) {
      awaitState(key, ExecutionState.COMPLETED_NOT_DELIVERED);
    }
    HttpResponse<String> retry = raw.post(RawMcp.call(9, "create_ticket", "{\"title\":\"cut-b\"}"));
    assertThat(retry.statusCode()).isEqualTo(200);
    assertThat(retry.body())
        .contains("\"id\":9")
        .contains("created: cut-b")
        .contains("dev.tally/replay");
    // The whole batch retried, key-less, with new ids: both calls replay.
    Map<String, JsonNode> again =
        byId(
            raw.post(
                batch(
                    RawMcp.call(21, "create_ticket", "{\"title\":\"cut-a\"}"),
                    RawMcp.call(22, "create_ticket", "{\"title\":\"cut-b\"}"))));
    assertThat(text(again.get("21"))).endsWith("created: cut-a");
    assertThat(text(again.get("22"))).endsWith("created: cut-b");
    assertThat(again.get("21").path("result").path("_meta").has("dev.tally/replay")).isTrue();
    assertThat(h.upstream.sideEffects).hasValue(2);
    assertThat(h.upstream.idempotencyKeys).hasSize(2);
    // Both replays reached the client inside the merged answer: both executions are delivered.
    for (String key : h.upstream.idempotencyKeys) {
      awaitState(key, ExecutionState.DELIVERED);
    }
  }
}
