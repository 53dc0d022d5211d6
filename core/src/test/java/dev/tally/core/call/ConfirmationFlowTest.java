package dev.tally.core.call;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tally.core.config.ConfirmationConfig;
import dev.tally.core.config.WritesConfig;
import dev.tally.core.contract.ContractRegistry;
import dev.tally.core.contract.FingerprintRules;
import dev.tally.core.contract.ToolClass;
import dev.tally.core.contract.ToolContract;
import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.fingerprint.HmacKey;
import dev.tally.core.fingerprint.KeyRing;
import dev.tally.core.gate.Confirmations;
import dev.tally.core.gate.Gate;
import dev.tally.core.gate.GateOptions;
import dev.tally.core.gate.WriteControl;
import dev.tally.core.mcp.BodyClassifier;
import dev.tally.core.mcp.Headers;
import dev.tally.core.mcp.TallyError;
import dev.tally.core.mcp.WireJson;
import dev.tally.core.store.ExecutionStore;
import dev.tally.core.store.MemoryExecutionStore;
import dev.tally.core.testing.MutableClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 18 through the one pipeline both adapters share ({@link CallIntake} over a real {@link
 * Gate}): what the agent gets for a call that waits for its person, what that person's decision
 * does, and which tools write control hides.
 */
class ConfirmationFlowTest {
  static final ObjectMapper JSON = new ObjectMapper();
  static final String ALICE = "alice";
  static final String BOB = "bob";

  MutableClock clock;
  ExecutionStore store;
  Gate gate;
  CallIntake intake;
  final BodyClassifier classifier = BodyClassifier.create(WireJson.defaults());

  @BeforeEach
  void setUp() {
    open(WritesConfig.DEFAULT);
  }

  void open(WritesConfig writes) {
    clock = MutableClock.at(Instant.parse("2026-11-30T12:00:00Z"));
    store = MemoryExecutionStore.create();
    byte[] k = new byte[32];
    Arrays.fill(k, (byte) 7);
    ToolContract pay =
        ToolContract.of("pay", ToolClass.IRREVERSIBLE, ToolContract.Source.CONFIGURATION);
    pay =
        new ToolContract(
            pay.tool(),
            pay.toolClass(),
            pay.source(),
            new FingerprintRules(List.of(), List.of(), Map.of(), List.of("/card")),
            pay.attachWindow(),
            pay.attachWait(),
            pay.resultRetention(),
            pay.unknownOutcome(),
            null,
            true,
            pay.onDisconnect());
    ContractRegistry contracts =
        ContractRegistry.of(
            Map.of(
                "pay",
                pay,
                "search",
                ToolContract.of("search", ToolClass.READ_ONLY, ToolContract.Source.CONFIGURATION),
                "create_ticket",
                ToolContract.of(
                    "create_ticket", ToolClass.IRREVERSIBLE, ToolContract.Source.CONFIGURATION),
                "drop_all",
                ToolContract.of(
                    "drop_all", ToolClass.IRREVERSIBLE, ToolContract.Source.CONFIGURATION)),
            ToolContract.defaultFor("default"));
    gate =
        Gate.builder(store, KeyRing.of(HmacKey.of("k1", k)))
            .options(GateOptions.defaults("owner-a"))
            .contracts(contracts)
            .actors(h -> h.get("X-Actor") == null ? "anonymous" : h.get("X-Actor"))
            .clock(clock)
            .writes(WriteControl.of(writes))
            .confirmation(
                new ConfirmationConfig(
                        ConfirmationConfig.DEFAULT_EXPIRY,
                        Map.of("pay", Duration.ofMinutes(10)),
                        null)
                    .withUrl("http://127.0.0.1:9090"))
            .build();
    intake = CallIntake.create(Admission.of(gate), WireJson.defaults(), "http://up");
  }

  @AfterEach
  void tearDown() {
    gate.close();
    store.close();
  }

  // ---- the pending result ------------------------------------------------------------

  @Test
  void aCallNeedingConfirmationAnswersAPendingResultWithLinkExpiryAndMaskedPreview() {
    JsonNode r = answer(pay(1, ALICE, null));
    JsonNode sc = r.path("result").path("structuredContent");
    assertThat(r.path("result").path("isError").asBoolean(true)).isFalse();
    assertThat(sc.path("status").asText()).isEqualTo("pending_confirmation");
    String action = sc.path("actionId").asText();
    assertThat(action).startsWith("act_");
    assertThat(sc.path("confirmUrl").asText())
        .isEqualTo("http://127.0.0.1:9090/console/actions/" + action);
    assertThat(sc.path("expiresAt").asText()).isEqualTo("2026-11-30T12:10:00Z");
    assertThat(sc.path("summary").asText())
        .contains("Nothing was done yet")
        .contains(sc.path("confirmUrl").asText())
        .contains("2026-11-30T12:10:00Z");
    JsonNode preview = sc.path("preview");
    assertThat(preview.path("tool").asText()).isEqualTo("pay");
    assertThat(preview.path("target").asText()).isEqualTo("http://up");
    assertThat(preview.path("irreversible").asBoolean()).isTrue();
    assertThat(preview.path("arguments").path("amount").asInt()).isEqualTo(5);
    assertThat(preview.path("arguments").path("card").asText()).isEqualTo("***");
    assertThat(preview.path("arguments").path("apiToken").asText()).isEqualTo("***");
    assertThat(r.toString()).doesNotContain("4111").doesNotContain("tok-secret");
    assertThat(state(action)).isEqualTo(ExecutionState.PENDING_CONFIRMATION);
  }

  @Test
  void aRetryGetsTheSamePendingAndANewKeyASecondOne() {
    String first = actionOf(answer(pay(1, ALICE, null)));
    assertThat(actionOf(answer(pay(2, ALICE, null)))).isEqualTo(first);
    String keyed = actionOf(answer(pay(3, ALICE, "k-1")));
    assertThat(keyed).isNotEqualTo(first);
    assertThat(actionOf(answer(pay(4, ALICE, "k-1")))).isEqualTo(keyed);
    assertThat(actionOf(answer(pay(5, ALICE, "k-2")))).isNotEqualTo(keyed).isNotEqualTo(first);
  }

  // ---- the person's decision -------------------------------------------------------------

  @Test
  void confirmingRunsTheStoredCallUnderTheSameExecutionIdAndTheRetryGetsItsResult() {
    String action = actionOf(answer(pay(1, ALICE, null)));
    Confirmations.Outcome o = confirm(action, ALICE);
    assertThat(o).isInstanceOf(Confirmations.Execute.class);
    Confirmations.Execute run = (Confirmations.Execute) o;
    assertThat(run.inFlight().id().value()).isEqualTo(action);
    assertThat(state(action))
        .as("durable before a byte is sent")
        .isEqualTo(ExecutionState.DISPATCHED);
    JsonNode sent = tree(run.body());
    assertThat(sent.path("params").path("arguments").path("card").asText())
        .as("the upstream gets the client's arguments, not the preview")
        .isEqualTo("4111111111111111");
    assertThat(sent.path("params").path("_meta").path("dev.tally/executionId").asText())
        .isEqualTo(action);
    Execution authorizedSeen =
        store.find(new ExecutionId(action)).toCompletableFuture().join().get();
    assertThat(authorizedSeen.timeline()).containsKeys(ExecutionState.AUTHORIZED);
    run.inFlight()
        .completed(200, bytes("{\"content\":[{\"type\":\"text\",\"text\":\"paid\"}]}"), false)
        .toCompletableFuture()
        .join();
    run.inFlight().notDelivered().toCompletableFuture().join();
    JsonNode retry = answer(pay(9, ALICE, null));
    assertThat(retry.path("result").path("content").path(0).path("text").asText())
        .isEqualTo("paid");
    assertThat(
            retry
                .path("result")
                .path("_meta")
                .path("dev.tally/replay")
                .path("executionId")
                .asText())
        .isEqualTo(action);
  }

  @Test
  void onlyTheCallingActorMayDecideAndEveryoneElseLearnsNothing() {
    String action = actionOf(answer(pay(1, ALICE, null)));
    assertThat(confirm(action, BOB))
        .isEqualTo(new Confirmations.NotPending(java.util.Optional.empty()));
    assertThat(cancel(action, BOB))
        .isEqualTo(new Confirmations.NotPending(java.util.Optional.empty()));
    assertThat(confirm(action, "anonymous"))
        .isEqualTo(new Confirmations.NotPending(java.util.Optional.empty()));
    assertThat(state(action)).isEqualTo(ExecutionState.PENDING_CONFIRMATION);
    assertThat(confirm("act_01JZZZZZZZZZZZZZZZZZZZZZZZ", ALICE))
        .isEqualTo(new Confirmations.NotPending(java.util.Optional.empty()));
  }

  @Test
  void aCancelledCallsRetryGetsTheCancellationNeverANewPending() {
    String action = actionOf(answer(pay(1, ALICE, null)));
    assertThat(cancel(action, ALICE)).isInstanceOf(Confirmations.Cancelled.class);
    JsonNode retry = answer(pay(2, ALICE, null));
    JsonNode tally = retry.path("result").path("structuredContent").path("tally");
    assertThat(tally.path("code").asText()).isEqualTo("CONFIRMATION_CANCELLED");
    assertThat(tally.path("executionId").asText()).isEqualTo(action);
    assertThat(retry.path("result").path("isError").asBoolean()).isTrue();
    assertThat(store.result(new ExecutionId(action)).toCompletableFuture().join())
        .as("the stored call is wiped once it can no longer run")
        .hasValueSatisfying(b -> assertThat(new String(b, StandardCharsets.UTF_8)).isEqualTo("{}"));
    assertThat(confirm(action, ALICE)).isInstanceOf(Confirmations.NotPending.class);
  }

  @Test
  void atExpiryThePendingCallExpiresAndIsNeverRun() {
    String action = actionOf(answer(pay(1, ALICE, null)));
    clock.advance(Duration.ofMinutes(9));
    assertThat(actionOf(answer(pay(2, ALICE, null)))).isEqualTo(action);
    clock.advance(Duration.ofMinutes(1));
    JsonNode retry = answer(pay(3, ALICE, null));
    assertThat(retry.path("result").path("structuredContent").path("tally").path("code").asText())
        .isEqualTo("CONFIRMATION_EXPIRED");
    assertThat(state(action)).isEqualTo(ExecutionState.EXPIRED);
    Confirmations.Outcome late = confirm(action, ALICE);
    assertThat(late).isInstanceOf(Confirmations.NotPending.class);
    assertThat(state(action)).isEqualTo(ExecutionState.EXPIRED);
  }

  @Test
  void confirmingAfterExpiryExpiresInsteadOfRunning() {
    String action = actionOf(answer(pay(1, ALICE, null)));
    clock.advance(Duration.ofMinutes(10));
    Confirmations.Outcome o = confirm(action, ALICE);
    assertThat(o).isInstanceOf(Confirmations.NotPending.class);
    assertThat(state(action)).isEqualTo(ExecutionState.EXPIRED);
  }

  @Test
  void theSweepExpiresEveryPendingCallWhoseTimeIsUp() {
    String a = actionOf(answer(pay(1, ALICE, null)));
    String b = actionOf(answer(pay(2, BOB, null)));
    clock.advance(Duration.ofMinutes(11));
    assertThat(gate.confirmations().expireDue().toCompletableFuture().join()).isEqualTo(2);
    assertThat(state(a)).isEqualTo(ExecutionState.EXPIRED);
    assertThat(state(b)).isEqualTo(ExecutionState.EXPIRED);
  }

  @Test
  void revokingAnActorCancelsItsPendingCallsOnly() {
    String a = actionOf(answer(pay(1, ALICE, null)));
    String b = actionOf(answer(pay(2, BOB, null)));
    gate.writes().writeSwitch().revoke(ALICE);
    assertThat(gate.confirmations().cancelAllOf(ALICE).toCompletableFuture().join()).isEqualTo(1);
    assertThat(state(a)).isEqualTo(ExecutionState.CANCELLED);
    assertThat(state(b)).isEqualTo(ExecutionState.PENDING_CONFIRMATION);
  }

  @Test
  void rulesAreEvaluatedAgainAtConfirmTime() {
    String action = actionOf(answer(pay(1, ALICE, null)));
    gate.writes().writeSwitch().setGlobal(false);
    Confirmations.Outcome off = confirm(action, ALICE);
    assertThat(off)
        .isInstanceOfSatisfying(
            Confirmations.Refused.class,
            r -> assertThat(r.error().code()).isEqualTo(TallyError.Code.MCP_WRITE_DISABLED));
    assertThat(state(action)).isEqualTo(ExecutionState.PENDING_CONFIRMATION);
    gate.writes().writeSwitch().setGlobal(true);
    assertThat(confirm(action, ALICE)).isInstanceOf(Confirmations.Execute.class);
  }

  @Test
  void anActorThatLostTheRightToWriteHasItsConfirmationRejected() {
    gate.close();
    store.close();
    open(new WritesConfig(true, "X-Scopes", "mcp:write", Set.of(), Map.of()));
    String action = actionOf(answer(pay(1, ALICE, null, "mcp:read mcp:write")));
    Confirmations.Outcome o =
        gate.confirmations()
            .confirm(new ExecutionId(action), headers(ALICE, "mcp:read"))
            .toCompletableFuture()
            .join();
    assertThat(o).isInstanceOf(Confirmations.Refused.class);
    assertThat(state(action)).isEqualTo(ExecutionState.REJECTED);
    JsonNode retry = answer(pay(2, ALICE, null, "mcp:read mcp:write"));
    assertThat(retry.path("result").path("structuredContent").path("tally").path("code").asText())
        .isEqualTo("REJECTED");
  }

  @Test
  void everyDecisionIsInTheAuditChainAndTheTimeline(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) {
    gate.close();
    store.close();
    try (dev.tally.core.audit.AuditJournals journals =
        dev.tally.core.audit.AuditJournals.open(
            dir, dev.tally.core.audit.AuditOptions.defaults().withClock(clock))) {
      store =
          dev.tally.core.audit.AuditedExecutionStore.wrap(MemoryExecutionStore.create(), journals);
      gate =
          Gate.builder(store, KeyRing.of(HmacKey.of("k1", new byte[32])))
              .options(GateOptions.defaults("owner-a"))
              .contracts(
                  ContractRegistry.of(
                      Map.of(
                          "pay",
                          new ToolContract(
                              "pay",
                              ToolClass.IRREVERSIBLE,
                              ToolContract.Source.CONFIGURATION,
                              FingerprintRules.NONE,
                              ToolContract.DEFAULT_ATTACH_WINDOW,
                              ToolContract.DEFAULT_ATTACH_WAIT,
                              ToolContract.DEFAULT_RESULT_RETENTION,
                              dev.tally.core.contract.UnknownOutcomePolicy.REPORT,
                              null,
                              true,
                              dev.tally.core.contract.DisconnectBehaviour.FINISH)),
                      ToolContract.defaultFor("default")))
              .actors(h -> h.get("X-Actor") == null ? "anonymous" : h.get("X-Actor"))
              .clock(clock)
              .audit(journals)
              .build();
      intake = CallIntake.create(Admission.of(gate), WireJson.defaults(), "http://up");
      String cancelled = actionOf(answer(pay(1, ALICE, "k-c")));
      cancel(cancelled, ALICE);
      answer(pay(2, ALICE, "k-c"));
      String expired = actionOf(answer(pay(3, ALICE, "k-e")));
      String confirmed = actionOf(answer(pay(4, ALICE, "k-r")));
      Confirmations.Execute run = (Confirmations.Execute) confirm(confirmed, ALICE);
      run.inFlight().completed(200, bytes("{\"content\":[]}"), false).toCompletableFuture().join();
      clock.advance(Duration.ofMinutes(31));
      gate.confirmations().expireDue().toCompletableFuture().join();
      journals.flush();
      String c = dev.tally.core.audit.AuditTimeline.render(dir, java.util.Optional.of(cancelled));
      assertThat(c).contains("pending_confirmation").contains("cancelled");
      String e = dev.tally.core.audit.AuditTimeline.render(dir, java.util.Optional.of(expired));
      assertThat(e).contains("expired");
      String r = dev.tally.core.audit.AuditTimeline.render(dir, java.util.Optional.of(confirmed));
      assertThat(r).contains("authorized").contains("dispatched").contains("completed");
      String all =
          new String(
              java.nio.file.Files.readAllBytes(
                  dir.resolve(dev.tally.core.audit.AuditFiles.ACTIVITY)),
              StandardCharsets.UTF_8);
      assertThat(all)
          .as("no raw argument value reaches the audit chain")
          .doesNotContain("4111111111111111")
          .doesNotContain("tok-secret")
          .contains("\"outcome\":\"cancelled\"");
      assertThat(
              dev.tally.core.audit.AuditVerifier.create(dev.tally.core.audit.Canonicalizer.jcs())
                  .verify(dir, java.util.Optional.empty())
                  .bad())
          .as("the chain verifies")
          .isEmpty();
    } catch (java.io.IOException ex) {
      throw new AssertionError(ex);
    }
  }

  // ---- write control -----------------------------------------------------------------

  @Test
  void aHiddenWriteCalledByNameIsAnUnknownToolAndNothingIsRecorded() {
    gate.writes().writeSwitch().setGlobal(false);
    JsonNode r = answer(call(1, "create_ticket", "{\"title\":\"a\"}", ALICE, null, null));
    assertThat(r.path("error").path("code").asInt()).isEqualTo(-32602);
    assertThat(r.path("error").path("message").asText()).isEqualTo("Unknown tool: create_ticket");
    assertThat(r.path("error").has("data")).as("nothing tells it from an unknown tool").isFalse();
    assertThat(r.path("result").isMissingNode()).isTrue();
    JsonNode read = answerOrForward(call(2, "search", "{\"q\":\"x\"}", ALICE, null, null));
    assertThat(read).as("read tools still pass").isNull();
    assertThat(gate.lists("search", headers(ALICE, null))).isTrue();
    assertThat(gate.lists("create_ticket", headers(ALICE, null))).isFalse();
    gate.writes().writeSwitch().setActor(ALICE, true);
    assertThat(gate.lists("create_ticket", headers(ALICE, null))).isTrue();
    assertThat(gate.lists("create_ticket", headers(BOB, null))).isFalse();
  }

  @Test
  void writesNeedTheConfiguredScopeAndNeverExposedToolsNeverAppear() {
    gate.close();
    store.close();
    open(new WritesConfig(true, "X-Scopes", "mcp:write", Set.of("drop_all"), Map.of()));
    assertThat(gate.lists("create_ticket", headers(ALICE, "mcp:read"))).isFalse();
    assertThat(gate.lists("create_ticket", headers(ALICE, "mcp:read,mcp:write"))).isTrue();
    assertThat(gate.lists("search", headers(ALICE, null))).isTrue();
    assertThat(gate.lists("drop_all", headers(ALICE, "mcp:write"))).isFalse();
    JsonNode never = answer(call(1, "drop_all", "{}", ALICE, null, "mcp:write"));
    assertThat(never.path("error").path("message").asText()).isEqualTo("Unknown tool: drop_all");
    JsonNode noScope =
        answer(call(2, "create_ticket", "{\"title\":\"a\"}", ALICE, null, "mcp:read"));
    assertThat(noScope.path("error").path("code").asInt()).isEqualTo(-32602);
  }

  // ---- helpers -------------------------------------------------------------------------

  record Sent(byte[] body, Headers headers) {}

  Sent pay(int id, String actor, String key) {
    return pay(id, actor, key, null);
  }

  Sent pay(int id, String actor, String key, String scopes) {
    return call(
        id,
        "pay",
        "{\"amount\":5,\"card\":\"4111111111111111\",\"apiToken\":\"tok-secret\"}",
        actor,
        key,
        scopes);
  }

  Sent call(int id, String tool, String args, String actor, String key, String scopes) {
    String body =
        "{\"jsonrpc\":\"2.0\",\"id\":"
            + id
            + ",\"method\":\"tools/call\",\"params\":{\"name\":\""
            + tool
            + "\",\"arguments\":"
            + args
            + "}}";
    Headers base = headers(actor, scopes);
    Headers h = key == null ? base : n -> n.equalsIgnoreCase("Idempotency-Key") ? key : base.get(n);
    return new Sent(bytes(body), h);
  }

  static Headers headers(String actor, String scopes) {
    return n ->
        n.equalsIgnoreCase("X-Actor") ? actor : n.equalsIgnoreCase("X-Scopes") ? scopes : null;
  }

  JsonNode answer(Sent s) {
    JsonNode r = answerOrForward(s);
    assertThat(r).as("Tally answered itself").isNotNull();
    return r;
  }

  JsonNode answerOrForward(Sent s) {
    CallReply reply =
        intake
            .admit(classifier.classify(s.body()), s.body(), 0, s.body().length, s.headers())
            .toCompletableFuture()
            .join();
    if (reply instanceof CallReply.Answer a) {
      return tree(a.message());
    }
    if (reply instanceof CallReply.Refusal r) {
      return tree(r.message());
    }
    if (reply instanceof CallReply.Dispatch d) {
      d.recorder().unreachable();
    }
    return null;
  }

  Confirmations.Outcome confirm(String action, String actor) {
    return gate.confirmations()
        .confirm(new ExecutionId(action), headers(actor, null))
        .toCompletableFuture()
        .join();
  }

  Confirmations.Outcome cancel(String action, String actor) {
    return gate.confirmations()
        .cancel(new ExecutionId(action), headers(actor, null))
        .toCompletableFuture()
        .join();
  }

  ExecutionState state(String action) {
    return store.find(new ExecutionId(action)).toCompletableFuture().join().orElseThrow().state();
  }

  static String actionOf(JsonNode r) {
    String a = r.path("result").path("structuredContent").path("actionId").asText();
    assertThat(a).as(r.toString()).startsWith("act_");
    return a;
  }

  static JsonNode tree(byte[] b) {
    try {
      return JSON.readTree(b);
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
