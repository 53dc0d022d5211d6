package dev.tally.core.call;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.config.WritesConfig;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.gate.Confirmations;
import dev.tally.core.gate.RequestStates;
import dev.tally.core.mcp.Headers;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 18, 2026-07-28 era: a pending confirmation offered as an MRTR input-required result with a
 * URL-mode elicitation (for a client that declared it), Tally's own follow-up round, and the
 * fallback tool result for everyone else. Through {@link CallIntake} over a real gate (the fixture
 * of {@link ConfirmationFlowTest}).
 */
class ConfirmationElicitationTest {
  static final String ARGS =
      "{\"amount\":5,\"card\":\"4111111111111111\",\"apiToken\":\"tok-secret\"}";
  static final String URL_CAPS =
      "\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{\"form\":{},\"url\":{}}}";
  static final String MODERN = "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"";

  final ConfirmationFlowTest f = new ConfirmationFlowTest();

  @BeforeEach
  void setUp() {
    f.open(WritesConfig.DEFAULT);
  }

  @AfterEach
  void tearDown() {
    f.tearDown();
  }

  @Test
  void aModernClientDeclaringUrlElicitationGetsTheConfirmUrlAsAnInputRequest() {
    JsonNode r = f.answer(modern(1, "alice", null));
    JsonNode result = r.path("result");
    assertThat(result.path("resultType").asText()).as(r.toString()).isEqualTo("input_required");
    JsonNode pending = result.path("_meta").path("dev.tally/pending");
    String action = pending.path("actionId").asText();
    assertThat(action).startsWith("act_");
    JsonNode ask = result.path("inputRequests").path(action);
    assertThat(result.path("inputRequests").size()).isOne();
    assertThat(ask.path("method").asText()).isEqualTo("elicitation/create");
    assertThat(ask.path("params").path("mode").asText()).isEqualTo("url");
    assertThat(ask.path("params").path("url").asText())
        .isEqualTo("http://127.0.0.1:9090/console/actions/" + action)
        .isEqualTo(pending.path("confirmUrl").asText());
    assertThat(ask.path("params").path("message").asText())
        .isEqualTo(pending.path("summary").asText())
        .contains("Nothing was done yet");
    assertThat(ask.path("params").has("elicitationId"))
        .as("2026-07-28 dropped elicitationId; the inputRequests key identifies it")
        .isFalse();
    assertThat(pending.path("status").asText()).isEqualTo("pending_confirmation");
    assertThat(pending.path("expiresAt").asText()).isEqualTo("2026-11-30T12:10:00Z");
    assertThat(pending.path("preview").path("arguments").path("card").asText()).isEqualTo("***");
    assertThat(r.toString()).doesNotContain("4111111111111111").doesNotContain("tok-secret");
    assertThat(result.path("requestState").asText()).startsWith(RequestStates.PREFIX);
    assertThat(f.state(action)).isEqualTo(ExecutionState.PENDING_CONFIRMATION);
  }

  @Test
  void legacyClientsAndClientsWithoutUrlModeGetTodaysToolResult() {
    String formOnly =
        "\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{\"form\":{}}}";
    String implicitForm = "\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{}}";
    String legacyWithCaps = URL_CAPS; // a _meta capability without the 2026-07-28 version
    int id = 1;
    for (String meta :
        new String[] {
          MODERN, MODERN + "," + formOnly, MODERN + "," + implicitForm, legacyWithCaps
        }) {
      JsonNode r = f.answer(send(id++, "alice", "{" + meta + "}", null, "k-" + id));
      if (meta.startsWith(MODERN)) {
        // Every 2026-07-28 result names its type; Tally's own results too.
        assertThat(r.path("result").path("resultType").asText()).as(meta).isEqualTo("complete");
      } else {
        assertThat(r.path("result").has("resultType")).as(meta).isFalse();
      }
      assertThat(r.path("result").path("structuredContent").path("status").asText())
          .as(meta)
          .isEqualTo("pending_confirmation");
    }
  }

  @Test
  void theFollowUpWhileStillPendingAsksAgainWithTheSameActionAndLink() {
    JsonNode first = f.answer(modern(1, "alice", null));
    String action = actionOf(first);
    String state = first.path("result").path("requestState").asText();
    JsonNode again = f.answer(followUp(2, "alice", action, "accept", state));
    assertThat(again.path("result").path("resultType").asText()).isEqualTo("input_required");
    assertThat(actionOf(again)).isEqualTo(action);
    assertThat(again.path("result").path("inputRequests").path(action).path("params").path("url"))
        .isEqualTo(
            first.path("result").path("inputRequests").path(action).path("params").path("url"));
    assertThat(f.state(action)).isEqualTo(ExecutionState.PENDING_CONFIRMATION);
  }

  @Test
  void afterTheConfirmRanTheCallTheFollowUpGetsItsResultAndNothingRunsTwice() {
    JsonNode first = f.answer(modern(1, "alice", null));
    String action = actionOf(first);
    String state = first.path("result").path("requestState").asText();
    Confirmations.Execute run = (Confirmations.Execute) f.confirm(action, "alice");
    JsonNode sent = ConfirmationFlowTest.tree(run.body());
    assertThat(sent.path("params").has("inputResponses")).isFalse();
    assertThat(sent.path("params").has("requestState")).isFalse();
    run.inFlight()
        .completed(
            200,
            ConfirmationFlowTest.bytes("{\"content\":[{\"type\":\"text\",\"text\":\"paid\"}]}"),
            false)
        .toCompletableFuture()
        .join();
    run.inFlight().notDelivered().toCompletableFuture().join();
    JsonNode r = f.answer(followUp(2, "alice", action, "accept", state));
    assertThat(r.path("result").path("content").path(0).path("text").asText())
        .as(r.toString())
        .isEqualTo("paid");
    assertThat(r.path("result").path("_meta").path("dev.tally/replay").path("executionId").asText())
        .isEqualTo(action);
  }

  @Test
  void aCancelledOrExpiredActionsFollowUpGetsThatDecision() {
    JsonNode first = f.answer(modern(1, "alice", null));
    String action = actionOf(first);
    String state = first.path("result").path("requestState").asText();
    assertThat(f.cancel(action, "alice")).isInstanceOf(Confirmations.Cancelled.class);
    JsonNode r = f.answer(followUp(2, "alice", action, "accept", state));
    assertThat(tallyCode(r)).as(r.toString()).isEqualTo("CONFIRMATION_CANCELLED");

    JsonNode other = f.answer(modern(3, "alice", "second-key"));
    String second = actionOf(other);
    f.clock.advance(Duration.ofMinutes(11));
    JsonNode expired =
        f.answer(
            followUp(
                4,
                "alice",
                second,
                "accept",
                other.path("result").path("requestState").asText(),
                "second-key"));
    assertThat(tallyCode(expired)).as(expired.toString()).isEqualTo("CONFIRMATION_EXPIRED");
    assertThat(f.state(second)).isEqualTo(ExecutionState.EXPIRED);
  }

  @Test
  void declineOrCancelOfTheElicitationLeavesTheActionPendingAndAnswersTheToolResult() {
    for (String action : new String[] {"decline", "cancel"}) {
      String key = "key-" + action;
      JsonNode first = f.answer(modern(1, "alice", key));
      String id = actionOf(first);
      JsonNode r =
          f.answer(
              followUp(
                  2, "alice", id, action, first.path("result").path("requestState").asText(), key));
      assertThat(r.path("result").path("resultType").asText())
          .as(r.toString())
          .isEqualTo("complete");
      assertThat(r.path("result").path("structuredContent").path("actionId").asText())
          .isEqualTo(id);
      assertThat(f.state(id)).isEqualTo(ExecutionState.PENDING_CONFIRMATION);
    }
  }

  @Test
  void tamperedOtherActorsAndExpiredStatesAreRefusedWithTheirCodes() {
    JsonNode first = f.answer(modern(1, "alice", null));
    String action = actionOf(first);
    String state = first.path("result").path("requestState").asText();
    String altered = state.substring(0, state.length() - 2) + (state.endsWith("AA") ? "BB" : "AA");
    JsonNode r = f.answer(followUp(2, "alice", action, "accept", altered));
    assertThat(r.path("error").path("code").asInt()).as(r.toString()).isEqualTo(-32602);
    assertThat(r.path("error").path("data").path("tally").path("code").asText())
        .isEqualTo("REQUEST_STATE_INVALID");
    JsonNode bob = f.answer(followUp(3, "bob", action, "accept", state));
    assertThat(bob.path("error").path("data").path("tally").path("code").asText())
        .as(bob.toString())
        .isEqualTo("REQUEST_STATE_INVALID");
    // Another call (other arguments) with this call's state: its execution is not the stated one.
    String otherArgs =
        "{\"name\":\"pay\",\"arguments\":{\"amount\":6},\"_meta\":{"
            + MODERN
            + ","
            + URL_CAPS
            + "},\"requestState\":\""
            + state
            + "\"}";
    JsonNode mismatch = f.answer(raw(4, "alice", otherArgs, null));
    assertThat(mismatch.path("error").path("data").path("tally").path("code").asText())
        .as(mismatch.toString())
        .isEqualTo("REQUEST_STATE_INVALID");
    f.clock.advance(Duration.ofMinutes(10).plus(RequestStates.GRACE));
    JsonNode late = f.answer(followUp(5, "alice", action, "accept", state));
    assertThat(late.path("error").path("data").path("tally").path("code").asText())
        .as(late.toString())
        .isEqualTo("REQUEST_STATE_EXPIRED");
  }

  @Test
  void whenConfirmOnlyAuthorizesTheFollowUpDispatchesTheCallWithoutTallysRound() {
    JsonNode first = f.answer(modern(1, "alice", null));
    String action = actionOf(first);
    String state = first.path("result").path("requestState").asText();
    Confirmations.Outcome o =
        f.gate
            .confirmations()
            .authorize(new ExecutionId(action), ConfirmationFlowTest.headers("alice", null))
            .toCompletableFuture()
            .join();
    assertThat(o).isInstanceOf(Confirmations.Authorized.class);
    ConfirmationFlowTest.Sent s = followUp(2, "alice", action, "accept", state);
    CallReply reply =
        f.intake
            .admit(f.classifier.classify(s.body()), s.body(), 0, s.body().length, s.headers())
            .toCompletableFuture()
            .join();
    assertThat(reply).isInstanceOf(CallReply.Dispatch.class);
    CallReply.Dispatch d = (CallReply.Dispatch) reply;
    assertThat(d.inFlight().id().value()).isEqualTo(action);
    JsonNode up = ConfirmationFlowTest.tree(d.body());
    assertThat(up.path("params").has("inputResponses")).isFalse();
    assertThat(up.path("params").has("requestState")).isFalse();
    assertThat(up.path("params").path("arguments").path("card").asText())
        .isEqualTo("4111111111111111");
    d.recorder().unreachable();
  }

  // ---- helpers -------------------------------------------------------------------------

  ConfirmationFlowTest.Sent modern(int id, String actor, String key) {
    return send(id, actor, "{" + MODERN + "," + URL_CAPS + "}", null, key);
  }

  ConfirmationFlowTest.Sent followUp(
      int id, String actor, String action, String answer, String state) {
    return followUp(id, actor, action, answer, state, null);
  }

  ConfirmationFlowTest.Sent followUp(
      int id, String actor, String action, String answer, String state, String key) {
    String extra =
        ",\"inputResponses\":{\""
            + action
            + "\":{\"action\":\""
            + answer
            + "\"}},\"requestState\":\""
            + state
            + "\"";
    return send(id, actor, "{" + MODERN + "," + URL_CAPS + "}", extra, key);
  }

  ConfirmationFlowTest.Sent send(int id, String actor, String meta, String extra, String key) {
    String params =
        "{\"name\":\"pay\",\"arguments\":"
            + ARGS
            + ",\"_meta\":"
            + meta
            + (extra == null ? "" : extra)
            + "}";
    return raw(id, actor, params, key);
  }

  ConfirmationFlowTest.Sent raw(int id, String actor, String params, String key) {
    String body =
        "{\"jsonrpc\":\"2.0\",\"id\":"
            + id
            + ",\"method\":\"tools/call\",\"params\":"
            + params
            + "}";
    Headers actorOnly = ConfirmationFlowTest.headers(actor, null);
    boolean modern = params.contains("2026-07-28");
    Headers base =
        n -> {
          if (modern && n.equalsIgnoreCase("MCP-Protocol-Version")) {
            return "2026-07-28";
          }
          if (modern && n.equalsIgnoreCase("Mcp-Method")) {
            return "tools/call";
          }
          if (modern && n.equalsIgnoreCase("Mcp-Name")) {
            return "pay";
          }
          return actorOnly.get(n);
        };
    Headers h = key == null ? base : n -> n.equalsIgnoreCase("Idempotency-Key") ? key : base.get(n);
    return new ConfirmationFlowTest.Sent(ConfirmationFlowTest.bytes(body), h);
  }

  static String actionOf(JsonNode r) {
    JsonNode pending = r.path("result").path("_meta").path("dev.tally/pending");
    return pending.isMissingNode()
        ? r.path("result").path("structuredContent").path("actionId").asText()
        : pending.path("actionId").asText();
  }

  static String tallyCode(JsonNode r) {
    return r.path("result").path("structuredContent").path("tally").path("code").asText();
  }
}
