package dev.tally.filter;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.mcp.Base64Sentinel;
import dev.tally.core.store.ExecutionQuery;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The filter in front of a plain JSON servlet, synchronous and asynchronous ({@code AsyncContext},
 * answered from another thread), in both MCP eras.
 */
class FilterServletModesIT {
  private MiniApp app;

  @AfterEach
  void stop() throws Exception {
    if (app != null) {
      app.close();
    }
  }

  @ParameterizedTest(name = "async={0}")
  @ValueSource(booleans = {false, true})
  void jsonResultIsCapturedDeliveredAndReplayed(boolean async) throws Exception {
    app = new MiniApp(async, FilterSettings.defaults());
    RawMcp raw = new RawMcp(app.endpoint);
    ObjectNode call = RawMcp.toolCall("write", "json-" + UUID.randomUUID());
    Map<String, String> key = Map.of("Idempotency-Key", "k-" + UUID.randomUUID());

    HttpResponse<String> first = raw.post(call.toString(), key);
    awaitState("write", ExecutionState.DELIVERED);
    HttpResponse<String> second =
        raw.post(
            RawMcp.toolCall("write", call.at("/params/arguments/message").asText()).toString(),
            key);

    assertThat(first.headers().firstValue("Content-Type").orElse(""))
        .startsWith("application/json");
    assertThat(RawMcp.responseOf(first).at("/result/content/0/text").asText())
        .isEqualTo("write done #1");
    JsonNode replay = RawMcp.responseOf(second);
    assertThat(second.headers().firstValue("Content-Type").orElse(""))
        .startsWith("text/event-stream");
    assertThat(second.body()).startsWith("event: message\ndata: {");
    assertThat(replay.at("/result/content/0/text").asText()).isEqualTo("write done #1");
    assertThat(replay.at("/result/_meta/dev.tally~1replay/state").asText()).isEqualTo("delivered");
    assertThat(app.servlet.writes.get()).isEqualTo(1);
  }

  /**
   * Issue "The promise holds under real failures", case 6, in the filter: the application handles
   * the client's {@code notifications/cancelled} itself and ends the call's stream without an
   * answer; the execution is {@code outcome_unknown} at once, and the retry is told so instead of
   * {@code IDEMPOTENCY_IN_PROGRESS}.
   */
  @ParameterizedTest(name = "async={0}")
  @ValueSource(booleans = {false, true})
  void aCallTheAppEndsWithoutAnAnswerAfterItsCancellationSettlesAtOnce(boolean async)
      throws Exception {
    app = new MiniApp(async, FilterSettings.defaults());
    RawMcp raw = new RawMcp(app.endpoint);
    String message = "cancel-" + UUID.randomUUID();
    ObjectNode call = RawMcp.toolCall("abortable", message);
    java.util.concurrent.CompletableFuture<HttpResponse<String>> first =
        raw.http.sendAsync(
            java.net.http.HttpRequest.newBuilder(app.endpoint)
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream")
                .header("Authorization", RawMcp.AGENT)
                .POST(java.net.http.HttpRequest.BodyPublishers.ofString(call.toString()))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    for (int i = 0; i < 1000 && app.servlet.executionIds.isEmpty(); i++) {
      Thread.sleep(10); // polling a condition: the servlet has the call
    }
    Execution dispatched = awaitState("abortable", ExecutionState.DISPATCHED);
    assertThat(app.servlet.executionIds).containsExactly(dispatched.id().value());

    HttpResponse<String> cancel =
        raw.post(
            "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":"
                + call.get("id")
                + ",\"reason\":\"client timeout\"}}",
            Map.of());
    assertThat(cancel.statusCode()).isEqualTo(202);
    assertThat(first.get(10, java.util.concurrent.TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    awaitState("abortable", ExecutionState.OUTCOME_UNKNOWN);

    JsonNode retry =
        RawMcp.responseOf(raw.post(RawMcp.toolCall("abortable", message).toString(), Map.of()));
    assertThat(retry.at("/result/structuredContent/tally/code").asText())
        .isEqualTo("OUTCOME_UNKNOWN");
    assertThat(app.servlet.executionIds).hasSize(1);
  }

  @ParameterizedTest(name = "async={0}")
  @ValueSource(booleans = {false, true})
  void replayIsJsonWhenTheClientDoesNotNameTheEventStream(boolean async) throws Exception {
    app = new MiniApp(async, FilterSettings.defaults());
    RawMcp raw = new RawMcp(app.endpoint);
    String message = "only-json-" + UUID.randomUUID();
    Map<String, String> h =
        // Both types must be accepted (the transport's rule, as in the sidecar); a wildcard admits
        // the event stream without naming it.
        Map.of(
            "Idempotency-Key", "k-" + UUID.randomUUID(), "Accept", "application/json, */*;q=0.5");

    raw.post(RawMcp.toolCall("write", message).toString(), h);
    HttpResponse<String> second = raw.post(RawMcp.toolCall("write", message).toString(), h);

    assertThat(second.headers().firstValue("Content-Type").orElse(""))
        .startsWith("application/json");
    assertThat(
            RawMcp.JSON
                .readTree(second.body())
                .at("/result/_meta/dev.tally~1replay/executionId")
                .asText())
        .startsWith("act_");
    assertThat(app.servlet.writes.get()).isEqualTo(1);
  }

  @ParameterizedTest(name = "async={0}")
  @ValueSource(booleans = {false, true})
  void inputRequiredKeepsTheExecutionOpenAndTheFollowUpContinuesIt(boolean async) throws Exception {
    app = new MiniApp(async, FilterSettings.defaults());
    RawMcp raw = new RawMcp(app.endpoint);
    ObjectNode first = modernCall("confirm_delete", "doc-7");
    JsonNode asked = RawMcp.responseOf(raw.post(first.toString(), modernHeaders("confirm_delete")));
    assertThat(asked.at("/result/resultType").asText()).isEqualTo("input_required");
    Execution open = awaitState("confirm_delete", ExecutionState.DISPATCHED);
    assertThat(awaitInput(open).awaitingInput()).isTrue();

    ObjectNode followUp = modernCall("confirm_delete", "doc-7");
    ((ObjectNode) followUp.get("params"))
        .putObject("inputResponses")
        .putObject("ok")
        .put("action", "accept");
    ((ObjectNode) followUp.get("params")).put("requestState", "state-1");
    JsonNode done =
        RawMcp.responseOf(raw.post(followUp.toString(), modernHeaders("confirm_delete")));

    assertThat(done.at("/result/content/0/text").asText()).isEqualTo("confirm_delete done #1");
    List<String> ids = List.copyOf(app.servlet.executionIds);
    assertThat(ids).hasSize(2);
    assertThat(ids.get(1)).isEqualTo(ids.get(0)).isEqualTo(open.id().value());
    assertThat(awaitState("confirm_delete", ExecutionState.DELIVERED).id()).isEqualTo(open.id());
  }

  /**
   * A body refused as too large by its declared length must still let the client read the 413: the
   * filter answers at once, then reads and drops the rest (up to a bound), so the server does not
   * close the connection under a client still sending (a broken pipe instead of an answer, a rare
   * flake of the scenario suite before).
   */
  @ParameterizedTest(name = "async={0}")
  @ValueSource(booleans = {false, true})
  void aLargeRefusedBodyStillGetsItsAnswer(boolean async) throws Exception {
    app = new MiniApp(async, FilterSettings.defaults().withLimits(1024, 1024 * 1024));
    RawMcp raw = new RawMcp(app.endpoint);
    String big = RawMcp.toolCall("write", "x".repeat(2 << 20)).toString();
    for (int i = 0; i < 10; i++) {
      HttpResponse<String> r = raw.post(big, Map.of());
      assertThat(r.statusCode()).as("attempt %d", i).isEqualTo(413);
      assertThat(RawMcp.JSON.readTree(r.body()).at("/error/code").asInt()).isEqualTo(-32600);
    }
    assertThat(app.servlet.requests.get()).isZero();
  }

  @ParameterizedTest(name = "async={0}")
  @ValueSource(booleans = {false, true})
  void badInputNeverReachesTheServlet(boolean async) throws Exception {
    app = new MiniApp(async, FilterSettings.defaults().withLimits(1024, 1024 * 1024));
    RawMcp raw = new RawMcp(app.endpoint);
    int before = app.servlet.requests.get();

    assertThat(
            raw.post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",", Map.of())
                .statusCode())
        .isEqualTo(400);
    assertThat(
            raw.post(RawMcp.toolCall("write", "x".repeat(2000)).toString(), Map.of()).statusCode())
        .isEqualTo(413);
    assertThat(raw.post("[" + RawMcp.toolCall("write", "b") + "]", Map.of()).statusCode())
        .isEqualTo(400);
    String dup =
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"method\":\"tools/call\"}";
    assertThat(raw.post(dup, Map.of()).statusCode()).isEqualTo(400);
    HttpResponse<String> mismatch =
        raw.post(RawMcp.toolCall("write", "m").toString(), Map.of("Mcp-Method", "tools/list"));
    assertThat(mismatch.statusCode()).isEqualTo(400);
    assertThat(RawMcp.JSON.readTree(mismatch.body()).at("/error/code").asInt()).isEqualTo(-32020);
    HttpResponse<String> notJson =
        raw.http.send(
            java.net.http.HttpRequest.newBuilder(app.endpoint)
                .header("Content-Type", "text/plain")
                .POST(java.net.http.HttpRequest.BodyPublishers.ofString("hi"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(notJson.statusCode()).isEqualTo(415);

    assertThat(app.servlet.requests.get()).isEqualTo(before);
    assertThat(app.records("write")).isZero();
  }

  @ParameterizedTest(name = "async={0}")
  @ValueSource(booleans = {false, true})
  void otherMessagesReachTheServletWithTheirBodyIntact(boolean async) throws Exception {
    app = new MiniApp(async, FilterSettings.defaults());
    RawMcp raw = new RawMcp(app.endpoint);
    String ping =
        "{ \"jsonrpc\" : \"2.0\", \"id\" : \"p-1\", \"method\" : \"ping\", \"params\":{\"é\":[1,2.50]} }";
    String response = "{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{}}";

    assertThat(raw.post(ping, Map.of()).statusCode()).isEqualTo(200);
    assertThat(raw.post(response, Map.of()).statusCode()).isEqualTo(200);

    assertThat(app.servlet.rawBodies).containsExactly(ping, response);
  }

  @ParameterizedTest(name = "async={0}")
  @ValueSource(booleans = {false, true})
  void paramHeadersLearnedFromToolsListAreChecked(boolean async) throws Exception {
    app = new MiniApp(async, FilterSettings.defaults());
    RawMcp raw = new RawMcp(app.endpoint);
    raw.post(RawMcp.request("tools/list").toString(), Map.of());
    ObjectNode call = modernCall("write", "m");
    ((ObjectNode) call.at("/params/arguments")).put("region", "eu-west 1 ü");

    Map<String, String> wrong = new LinkedHashMap<>(modernHeaders("write"));
    wrong.put("Mcp-Param-Region", "us-east1");
    HttpResponse<String> refused = raw.post(call.toString(), wrong);
    Map<String, String> right = new LinkedHashMap<>(modernHeaders("write"));
    right.put("Mcp-Param-Region", Base64Sentinel.encode("eu-west 1 ü"));
    HttpResponse<String> accepted = raw.post(call.toString(), right);

    assertThat(refused.statusCode()).isEqualTo(400);
    assertThat(RawMcp.JSON.readTree(refused.body()).at("/error/data/tally/code").asText())
        .isEqualTo("HEADER_MISMATCH");
    assertThat(accepted.statusCode()).isEqualTo(200);
    assertThat(app.servlet.writes.get()).isEqualTo(1);
  }

  private static ObjectNode modernCall(String tool, String message) {
    ObjectNode c = RawMcp.toolCall(tool, message);
    ((ObjectNode) c.get("params"))
        .putObject("_meta")
        .put("io.modelcontextprotocol/protocolVersion", "2026-07-28");
    return c;
  }

  private static Map<String, String> modernHeaders(String tool) {
    return Map.of(
        "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", tool);
  }

  private Execution awaitInput(Execution e) {
    Execution cur = e;
    for (int i = 0; i < 20 && !cur.awaitingInput(); i++) {
      cur =
          app.store
              .awaitChange(cur.id(), cur.version(), Duration.ofSeconds(2))
              .toCompletableFuture()
              .join()
              .orElseThrow();
    }
    return cur;
  }

  private Execution awaitState(String tool, ExecutionState state) {
    for (int i = 0; i < 20; i++) {
      List<Execution> items =
          app.store
              .list(new ExecutionQuery(null, tool, null, null, 10))
              .toCompletableFuture()
              .join()
              .items();
      assertThat(items).hasSize(1);
      Execution e = items.get(0);
      if (e.state() == state) {
        return e;
      }
      app.store
          .awaitChange(e.id(), e.version(), Duration.ofSeconds(2))
          .toCompletableFuture()
          .join();
    }
    throw new AssertionError("execution of " + tool + " never reached " + state.wireName());
  }
}
