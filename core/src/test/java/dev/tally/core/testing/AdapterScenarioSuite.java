package dev.tally.core.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The MCP scenarios every Tally adapter (sidecar, servlet filter) must pass, so their behaviour
 * cannot drift. Speaks raw HTTP with the JDK client and Jackson only. A binding starts an MCP
 * server with a side-effecting tool and a read-only tool behind its adapter, and implements the
 * hooks.
 *
 * <p>The write tool takes {@code {"message": string}} and answers a text result that differs per
 * execution (so a replay is distinguishable from a second run); the read tool takes the same and
 * must be annotated {@code readOnlyHint: true} or configured {@code read_only}.
 */
public abstract class AdapterScenarioSuite {
  /** The credential every scenario request carries unless it names another. */
  protected static final String AGENT = "Bearer adapter-scenario-agent";

  protected static final ObjectMapper JSON = new ObjectMapper();
  private static final AtomicLong IDS = new AtomicLong(1);

  private final HttpClient http =
      HttpClient.newBuilder()
          // HTTP/1.1 as MCP clients speak it; an h2c upgrade answered early (413) ends in GOAWAY.
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();
  private Map<String, String> session;

  /** The MCP endpoint in front of the adapter. */
  protected abstract URI endpoint();

  /** How many times the write tool has run upstream so far. */
  protected abstract int sideEffects();

  /** How many executions the adapter's store holds for {@code tool}. */
  protected abstract int recordedExecutions(String tool);

  /** The side-effecting tool's name. */
  protected abstract String writeTool();

  /** The read-only tool's name. */
  protected abstract String readTool();

  /** The adapter's request body limit, in bytes. */
  protected abstract int maxRequestBytes();

  /** How many POST requests have reached the MCP server behind the adapter so far. */
  protected abstract int upstreamRequests();

  /**
   * Headers that make a request part of a session the upstream accepts. The default initializes a
   * 2025-06-18 session with raw HTTP and returns {@code Mcp-Session-Id} and {@code
   * MCP-Protocol-Version}.
   */
  protected Map<String, String> openSession() throws Exception {
    ObjectNode init = request("initialize");
    ObjectNode p = init.putObject("params");
    p.put("protocolVersion", "2025-06-18");
    p.putObject("capabilities");
    p.putObject("clientInfo").put("name", "adapter-scenarios").put("version", "1");
    HttpResponse<String> r = post(init, Map.of());
    assertThat(r.statusCode()).as("initialize status").isEqualTo(200);
    Map<String, String> h = new LinkedHashMap<>();
    r.headers().firstValue("Mcp-Session-Id").ifPresent(v -> h.put("Mcp-Session-Id", v));
    h.put("MCP-Protocol-Version", "2025-06-18");
    ObjectNode initialized = JSON.createObjectNode();
    initialized.put("jsonrpc", "2.0");
    initialized.put("method", "notifications/initialized");
    HttpResponse<String> n = post(initialized, h);
    assertThat(n.statusCode()).as("initialized notification status").isBetween(200, 299);
    return h;
  }

  @BeforeEach
  void session() throws Exception {
    session = openSession();
    HttpResponse<String> list = post(request("tools/list"), session);
    assertThat(list.statusCode()).isEqualTo(200);
  }

  @Test
  void retryWithNewIdReplaysTheStoredResult() throws Exception {
    int before = sideEffects();
    String key = "key-" + UUID.randomUUID();
    ObjectNode args = args("retry");
    JsonNode first = call(writeTool(), args, Map.of("Idempotency-Key", key));
    JsonNode second = call(writeTool(), args, Map.of("Idempotency-Key", key));

    assertThat(first.path("result").path("isError").asBoolean(false)).isFalse();
    assertThat(second.path("result").path("content"))
        .isEqualTo(first.path("result").path("content"));
    assertThat(
            second
                .path("result")
                .path("_meta")
                .path("dev.tally/replay")
                .path("executionId")
                .asText())
        .startsWith("act_");
    assertThat(second.path("id")).isNotEqualTo(first.path("id"));
    assertThat(sideEffects() - before).isEqualTo(1);
  }

  @Test
  void concurrentIdenticalCallsRunOnce() throws Exception {
    int before = sideEffects();
    String key = "key-" + UUID.randomUUID();
    ObjectNode args = args("concurrent");
    List<CompletableFuture<JsonNode>> calls = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      calls.add(
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return call(writeTool(), args, Map.of("Idempotency-Key", key));
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              }));
    }
    List<JsonNode> results = new ArrayList<>();
    for (CompletableFuture<JsonNode> f : calls) {
      results.add(f.get());
    }
    JsonNode content = results.get(0).path("result").path("content");
    assertThat(content.isArray()).isTrue();
    for (JsonNode r : results) {
      assertThat(r.path("result").path("content")).isEqualTo(content);
    }
    assertThat(sideEffects() - before).isEqualTo(1);
  }

  @Test
  void keylessRetryStormRunsOnceAndEveryCopyGetsTheResult() throws Exception {
    int before = sideEffects();
    ObjectNode args = args("storm-" + UUID.randomUUID());
    List<CompletableFuture<JsonNode>> calls = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(16);
    try {
      for (int i = 0; i < 16; i++) {
        calls.add(
            CompletableFuture.supplyAsync(
                () -> {
                  try {
                    return call(writeTool(), args, Map.of());
                  } catch (Exception e) {
                    throw new IllegalStateException(e);
                  }
                },
                pool));
      }
      List<JsonNode> results = new ArrayList<>();
      for (CompletableFuture<JsonNode> f : calls) {
        results.add(f.get(60, TimeUnit.SECONDS));
      }
      // A late copy, sent after the others were answered (and so after delivery).
      results.add(call(writeTool(), args, Map.of()));
      JsonNode content = results.get(0).path("result").path("content");
      assertThat(content.isArray()).isTrue();
      for (JsonNode r : results) {
        assertThat(r.path("result").path("content")).isEqualTo(content);
      }
      assertThat(sideEffects() - before).isEqualTo(1);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void reusedKeyWithOtherArgumentsIsRefused() throws Exception {
    int before = sideEffects();
    String key = "key-" + UUID.randomUUID();
    call(writeTool(), args("first"), Map.of("Idempotency-Key", key));
    JsonNode reused = call(writeTool(), args("second"), Map.of("Idempotency-Key", key));

    assertThat(reused.path("result").path("isError").asBoolean()).isTrue();
    assertThat(reused.path("result").path("structuredContent").path("tally").path("code").asText())
        .isEqualTo("IDEMPOTENCY_KEY_REUSED");
    assertThat(sideEffects() - before).isEqualTo(1);
  }

  @Test
  void aBadKeyIsAValidationErrorToolResultAndNothingIsSent() throws Exception {
    int before = upstreamRequests();
    int effects = sideEffects();
    JsonNode r = call(writeTool(), args("bad-key"), Map.of("Idempotency-Key", "x".repeat(201)));

    JsonNode tally = r.path("result").path("structuredContent").path("tally");
    assertThat(r.path("result").path("isError").asBoolean()).isTrue();
    assertThat(tally.path("code").asText()).isEqualTo("VALIDATION_ERROR");
    assertThat(tally.path("reason").asText()).isEqualTo("INVALID_IDEMPOTENCY_KEY");
    assertThat(tally.path("retryable").asBoolean(true)).isFalse();
    assertThat(r.toString()).doesNotContain("xxxxxxxx");
    assertThat(upstreamRequests()).isEqualTo(before);
    assertThat(sideEffects()).isEqualTo(effects);
  }

  @Test
  void anArgumentKeyIsAnyTextAndMatchesItsRetry() throws Exception {
    int before = sideEffects();
    ObjectNode args = args("unicode-key");
    args.put("idempotencyKey", "Überweisung 支払い 🚀 " + UUID.randomUUID());
    JsonNode first = call(writeTool(), args, Map.of());
    JsonNode second = call(writeTool(), args, Map.of());

    assertThat(first.path("result").path("isError").asBoolean(false)).isFalse();
    assertThat(second.path("result").path("_meta").has("dev.tally/replay")).isTrue();
    assertThat(sideEffects() - before).isEqualTo(1);
  }

  @Test
  void readOnlyToolPassesThroughWithoutARecord() throws Exception {
    ObjectNode args = args("read");
    JsonNode a = call(readTool(), args, Map.of());
    JsonNode b = call(readTool(), args, Map.of());

    assertThat(a.path("result").path("isError").asBoolean(false)).isFalse();
    assertThat(b.path("result").path("_meta").has("dev.tally/replay")).isFalse();
    assertThat(recordedExecutions(readTool())).isZero();
  }

  @Test
  void malformedJsonIsRefusedWithParseError() throws Exception {
    int before = sideEffects();
    String body =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\""
            + writeTool()
            + "\",\"arguments\":{";
    HttpResponse<String> r = postRaw(body, session);

    assertRefused(r, 400, -32700, "PARSE_ERROR");
    assertThat(sideEffects()).isEqualTo(before);
  }

  @Test
  void oversizedBodyIsRefusedWithPayloadTooLarge() throws Exception {
    int before = sideEffects();
    ObjectNode args = args("x".repeat(maxRequestBytes() + 1));
    HttpResponse<String> r = post(toolCall(writeTool(), args), session);

    assertRefused(r, 413, -32600, "PAYLOAD_TOO_LARGE");
    assertThat(sideEffects()).isEqualTo(before);
  }

  @Test
  void nameHeaderThatDisagreesWithTheBodyIsRefused() throws Exception {
    int before = sideEffects();
    ObjectNode call = toolCall(writeTool(), args("mismatch"));
    ((ObjectNode) call.get("params"))
        .putObject("_meta")
        .put("io.modelcontextprotocol/protocolVersion", "2026-07-28");
    Map<String, String> h = new LinkedHashMap<>(session);
    h.put("MCP-Protocol-Version", "2026-07-28");
    h.put("Mcp-Method", "tools/call");
    h.put("Mcp-Name", "not_" + writeTool());
    HttpResponse<String> r = post(call, h);

    assertRefused(r, 400, -32020, "HEADER_MISMATCH");
    assertThat(sideEffects()).isEqualTo(before);
  }

  @Test
  void methodHeaderThatDisagreesWithTheBodyIsRefused() throws Exception {
    int before = sideEffects();
    ObjectNode call = toolCall(writeTool(), args("method-mismatch"));
    ((ObjectNode) call.get("params"))
        .putObject("_meta")
        .put("io.modelcontextprotocol/protocolVersion", "2026-07-28");
    Map<String, String> h = new LinkedHashMap<>(session);
    h.put("MCP-Protocol-Version", "2026-07-28");
    h.put("Mcp-Method", "tools/list");
    h.put("Mcp-Name", writeTool());
    HttpResponse<String> r = post(call, h);

    assertRefused(r, 400, -32020, "HEADER_MISMATCH");
    assertThat(sideEffects()).isEqualTo(before);
  }

  // --- parity: hostile inputs both adapters must answer the same way, upstream untouched ------

  private static final byte[] BOM = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};

  /**
   * Posts {@code body} with {@code headers}; asserts the refusal and that nothing went upstream.
   */
  private void refusedUntouched(
      byte[] body, Map<String, String> headers, int status, int rpc, String code) throws Exception {
    int before = upstreamRequests();
    int effects = sideEffects();
    HttpResponse<String> r = postBytes(body, headers);
    assertRefused(r, status, rpc, code);
    assertThat(upstreamRequests()).as("requests that reached the MCP server").isEqualTo(before);
    assertThat(sideEffects()).isEqualTo(effects);
  }

  private void refusedUntouched(
      String body, Map<String, String> headers, int status, int rpc, String code) throws Exception {
    refusedUntouched(
        body.getBytes(java.nio.charset.StandardCharsets.UTF_8), headers, status, rpc, code);
  }

  private static byte[] withBom(String json) {
    byte[] b = json.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    byte[] out = new byte[b.length + 3];
    System.arraycopy(BOM, 0, out, 0, 3);
    System.arraycopy(b, 0, out, 3, b.length);
    return out;
  }

  private Map<String, String> modernHeaders(String method, String name) {
    Map<String, String> h = new LinkedHashMap<>();
    h.put("MCP-Protocol-Version", "2026-07-28");
    h.put("Mcp-Method", method);
    if (name != null) {
      h.put("Mcp-Name", name);
    }
    return h;
  }

  private static ObjectNode modernCall(String tool, ObjectNode args) {
    ObjectNode call = toolCall(tool, args);
    ((ObjectNode) call.get("params"))
        .putObject("_meta")
        .put("io.modelcontextprotocol/protocolVersion", "2026-07-28");
    return call;
  }

  @Test
  void aBatchStartingWithAByteOrderMarkIsRefusedNeverForwarded() throws Exception {
    String batch = "[" + JSON.writeValueAsString(toolCall(writeTool(), args("bom-batch"))) + "]";
    refusedUntouched(withBom(batch), session, 400, -32700, "PARSE_ERROR");
  }

  @Test
  void aToolCallStartingWithAByteOrderMarkIsRefusedNeverForwarded() throws Exception {
    refusedUntouched(
        withBom(JSON.writeValueAsString(toolCall(writeTool(), args("bom")))),
        session,
        400,
        -32700,
        "PARSE_ERROR");
  }

  /** Issue 21 case 8: {@code _meta} values held to the argument rules, in both adapters alike. */
  @Test
  void metaValuesOutsideTheArgumentRulesAreRefusedNeverForwarded() throws Exception {
    String call = JSON.writeValueAsString(toolCall(writeTool(), args("meta-rules")));
    String huge = call.replace("\"params\":{", "\"params\":{\"_meta\":{\"n\":1e400},");
    refusedUntouched(huge, session, 400, -32600, "INVALID_REQUEST");
    String lone = call.replace("\"params\":{", "\"params\":{\"_meta\":{\"s\":\"\\ud800\"},");
    refusedUntouched(lone, session, 400, -32600, "INVALID_REQUEST");
  }

  @Test
  void aFractionalIdIsAnInvalidRequest() throws Exception {
    ObjectNode call = toolCall(writeTool(), args("fraction"));
    call.put("id", 1.5);
    refusedUntouched(JSON.writeValueAsString(call), session, 400, -32600, "INVALID_REQUEST");
  }

  @Test
  void argumentsThatAreNotAnObjectAreInvalidParams() throws Exception {
    ObjectNode call = toolCall(writeTool(), args("x"));
    ((ObjectNode) call.get("params")).putArray("arguments").add(1);
    refusedUntouched(JSON.writeValueAsString(call), session, 400, -32602, "INVALID_ARGUMENTS");
  }

  @Test
  void aLegacyRequestWhoseMethodHeaderDisagreesIsRefused() throws Exception {
    Map<String, String> h = new LinkedHashMap<>(session);
    h.put("Mcp-Method", "tools/call");
    refusedUntouched(
        JSON.writeValueAsString(request("tools/list")), h, 400, -32020, "HEADER_MISMATCH");
  }

  @Test
  void aModernRequestOfAnyMethodWithoutTheMethodHeaderIsRefused() throws Exception {
    Map<String, String> h = new LinkedHashMap<>(session);
    h.put("MCP-Protocol-Version", "2026-07-28");
    refusedUntouched(
        JSON.writeValueAsString(request("tools/list")), h, 400, -32020, "HEADER_MISMATCH");
  }

  @Test
  void aMetaProtocolVersionWithoutTheVersionHeaderIsRefused() throws Exception {
    Map<String, String> h = new LinkedHashMap<>(session);
    h.remove("MCP-Protocol-Version");
    h.put("Mcp-Method", "tools/call");
    h.put("Mcp-Name", writeTool());
    refusedUntouched(
        JSON.writeValueAsString(modernCall(writeTool(), args("meta-only"))),
        h,
        400,
        -32020,
        "HEADER_MISMATCH");
  }

  @Test
  void aVersionHeaderThatDisagreesWithMetaIsRefused() throws Exception {
    Map<String, String> h = new LinkedHashMap<>(session);
    h.putAll(modernHeaders("tools/list", null));
    h.put("MCP-Protocol-Version", "2026-12-31");
    ObjectNode list = request("tools/list");
    list.putObject("params")
        .putObject("_meta")
        .put("io.modelcontextprotocol/protocolVersion", "2026-07-28");
    refusedUntouched(JSON.writeValueAsString(list), h, 400, -32020, "HEADER_MISMATCH");
  }

  @Test
  void aReadOnlyCallWhoseNameHeaderDisagreesIsRefused() throws Exception {
    Map<String, String> h = new LinkedHashMap<>(session);
    h.putAll(modernHeaders("tools/call", "not_" + readTool()));
    refusedUntouched(
        JSON.writeValueAsString(modernCall(readTool(), args("ro-name"))),
        h,
        400,
        -32020,
        "HEADER_MISMATCH");
  }

  @Test
  void aBatchUnderALaterProtocolVersionIsRefused() throws Exception {
    String batch = "[" + JSON.writeValueAsString(toolCall(writeTool(), args("late-batch"))) + "]";
    refusedUntouched(batch, session, 400, -32600, "INVALID_REQUEST");
  }

  @Test
  void aDuplicatedMethodIsRefusedWhateverMethodComesLast() throws Exception {
    String body =
        "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/list\",\"method\":\"tools/call\","
            + "\"params\":{\"name\":\""
            + writeTool()
            + "\",\"arguments\":{}}}";
    refusedUntouched(body, session, 400, -32600, "INVALID_REQUEST");
  }

  @Test
  void overlongUtf8IsRefusedNotDecoded() throws Exception {
    byte[] head =
        ("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\""
                + writeTool()
                + "\",\"arguments\":{\"message\":\"..")
            .getBytes(java.nio.charset.StandardCharsets.UTF_8);
    byte[] tail = "etc\"}}}".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    byte[] body = new byte[head.length + 2 + tail.length];
    System.arraycopy(head, 0, body, 0, head.length);
    body[head.length] = (byte) 0xC0;
    body[head.length + 1] = (byte) 0xAF;
    System.arraycopy(tail, 0, body, head.length + 2, tail.length);
    refusedUntouched(body, session, 400, -32700, "PARSE_ERROR");
  }

  // --- helpers for bindings ---------------------------------------------------------------

  /** Calls {@code tool} in the suite's session and returns the JSON-RPC response. */
  protected JsonNode call(String tool, ObjectNode args, Map<String, String> extra)
      throws IOException, InterruptedException {
    Map<String, String> h = new LinkedHashMap<>(session);
    h.putAll(extra);
    HttpResponse<String> r = post(toolCall(tool, args), h);
    assertThat(r.statusCode()).as("tools/call status").isEqualTo(200);
    return responseOf(r);
  }

  /** A JSON-RPC request with a fresh numeric id. */
  protected static ObjectNode request(String method) {
    ObjectNode o = JSON.createObjectNode();
    o.put("jsonrpc", "2.0");
    o.put("id", IDS.getAndIncrement());
    o.put("method", method);
    return o;
  }

  protected static ObjectNode toolCall(String tool, ObjectNode args) {
    ObjectNode o = request("tools/call");
    ObjectNode p = o.putObject("params");
    p.put("name", tool);
    p.set("arguments", args);
    return o;
  }

  protected static ObjectNode args(String message) {
    ObjectNode a = JSON.createObjectNode();
    a.put("message", message + "-" + UUID.randomUUID());
    return a;
  }

  protected HttpResponse<String> post(JsonNode body, Map<String, String> headers)
      throws IOException, InterruptedException {
    return postRaw(JSON.writeValueAsString(body), headers);
  }

  protected HttpResponse<String> postRaw(String body, Map<String, String> headers)
      throws IOException, InterruptedException {
    return postBytes(body.getBytes(java.nio.charset.StandardCharsets.UTF_8), headers);
  }

  protected HttpResponse<String> postBytes(byte[] body, Map<String, String> headers)
      throws IOException, InterruptedException {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(endpoint())
            .timeout(Duration.ofSeconds(30))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    // A credentialed agent (an anonymous retry is never shown a stored result), unless the
    // scenario names its own caller.
    if (headers.keySet().stream().noneMatch("Authorization"::equalsIgnoreCase)) {
      b.header("Authorization", AGENT);
    }
    headers.forEach(b::header);
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** The JSON-RPC response in a JSON body or in the {@code data:} of an SSE event. */
  protected static JsonNode responseOf(HttpResponse<String> r) throws IOException {
    String type = r.headers().firstValue("Content-Type").orElse("");
    if (!type.startsWith("text/event-stream")) {
      return JSON.readTree(r.body());
    }
    StringBuilder data = new StringBuilder();
    for (String line : r.body().split("\r\n|\r|\n", -1)) {
      if (line.startsWith("data:")) {
        data.append(line.substring(line.startsWith("data: ") ? 6 : 5)).append('\n');
      } else if (line.isEmpty() && data.length() > 0) {
        JsonNode msg = JSON.readTree(data.toString());
        if (msg.has("id") && !msg.has("method")) {
          return msg;
        }
        data.setLength(0);
      }
    }
    throw new AssertionError("no JSON-RPC response in the event stream");
  }

  private static void assertRefused(HttpResponse<String> r, int status, int rpc, String code)
      throws IOException {
    assertThat(r.statusCode()).as("HTTP status").isEqualTo(status);
    JsonNode e = JSON.readTree(r.body());
    assertThat(e.path("error").path("code").asInt()).as("JSON-RPC code").isEqualTo(rpc);
    assertThat(e.path("error").path("data").path("tally").path("code").asText()).isEqualTo(code);
  }
}
