package dev.tally.core.gate;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.IntNode;
import dev.tally.core.contract.ContractRegistry;
import dev.tally.core.contract.DisconnectBehaviour;
import dev.tally.core.contract.FingerprintRules;
import dev.tally.core.contract.ToolClass;
import dev.tally.core.contract.ToolContract;
import dev.tally.core.contract.UnknownOutcomePolicy;
import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.execution.RpcError;
import dev.tally.core.fingerprint.HmacKey;
import dev.tally.core.fingerprint.KeyRing;
import dev.tally.core.mcp.Headers;
import dev.tally.core.mcp.TallyCode;
import dev.tally.core.mcp.TallyError;
import dev.tally.core.mcp.ToolResults;
import dev.tally.core.store.ExecutionStore;
import dev.tally.core.testing.MutableClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class GateTest {
  static final ObjectMapper JSON = new ObjectMapper();
  static final KeyRing KEYS = KeyRing.of(HmacKey.of("k1", bytes(32, 1)));

  MutableClock clock;
  ExecutionStore store;
  Gate gate;
  Map<String, ToolContract> contracts;

  @BeforeEach
  void setUp() {
    clock = GateFixtures.clock();
    store = GateFixtures.memoryStore(clock);
    contracts = new HashMap<>();
    contracts.put(
        "search",
        ToolContract.of("search", ToolClass.READ_ONLY, ToolContract.Source.CONFIGURATION));
    contracts.put(
        "create_ticket",
        ToolContract.of(
            "create_ticket", ToolClass.IRREVERSIBLE, ToolContract.Source.CONFIGURATION));
    contracts.put(
        "deploy", ToolContract.of("deploy", ToolClass.KEYED, ToolContract.Source.CONFIGURATION));
    contracts.put(
        "transfer",
        ToolContract.of("transfer", ToolClass.IRREVERSIBLE, ToolContract.Source.CONFIGURATION)
            .withReleaseOnError(false));
    contracts.put(
        "slow",
        withAttachWait(
            ToolContract.of("slow", ToolClass.IRREVERSIBLE, ToolContract.Source.CONFIGURATION),
            Duration.ofMillis(50)));
    gate = newGate("owner-a", KEYS);
  }

  @AfterEach
  void tearDown() {
    gate.close();
    store.close();
  }

  Gate newGate(String owner, KeyRing keys) {
    return Gate.builder(store, keys)
        .options(GateOptions.defaults(owner))
        .contracts(ContractRegistry.of(contracts, ToolContract.defaultFor("default")))
        .actors(h -> h.get("X-Actor") == null ? "test-caller" : "hdr:" + h.get("X-Actor"))
        .clock(clock)
        .build();
  }

  // ---- read-only and new executions ----------------------------------------------------

  @Test
  void readOnlyToolPassesThroughWithoutRecord() {
    Decision d = admit(call("search", "{\"q\":\"x\"}"));
    assertThat(d).isInstanceOf(Decision.PassThrough.class);
  }

  @Test
  void newWriteIsDispatchedDurablyBeforeTheUpstreamSeesIt() {
    Decision.Dispatch d = (Decision.Dispatch) admit(call("create_ticket", "{\"title\":\"a\"}"));
    Execution stored = store.find(d.inFlight().id()).toCompletableFuture().join().orElseThrow();
    assertThat(stored.state()).isEqualTo(ExecutionState.DISPATCHED);
    assertThat(stored.timeline())
        .containsKeys(
            ExecutionState.ACCEPTED, ExecutionState.AUTHORIZED, ExecutionState.DISPATCHED);
    assertThat(stored.id().value()).startsWith("act_");
    assertThat(stored.fingerprint()).startsWith("hmac-sha256:k1:");
    assertThat(stored.lease().owner()).isEqualTo("owner-a");
  }

  // ---- replay ------------------------------------------------------------------------

  @Test
  void retryAfterLostResponseReplaysStoredResultUnderNewId() throws Exception {
    Decision.Dispatch first = (Decision.Dispatch) admit(call("create_ticket", "{\"title\":\"a\"}"));
    byte[] result =
        "{\"content\":[{\"type\":\"text\",\"text\":\"T-1\"}]}".getBytes(StandardCharsets.UTF_8);
    first.inFlight().completed(200, result, false).toCompletableFuture().join();
    first.inFlight().notDelivered().toCompletableFuture().join();

    Decision retry = admit(call("create_ticket", "{ \"title\" : \"a\" }"));
    assertThat(retry).isInstanceOf(Decision.Replay.class);
    Decision.Replay replay = (Decision.Replay) retry;
    assertThat(replay.execution().id()).isEqualTo(first.inFlight().id());
    JsonNode rendered =
        JSON.readTree(ToolResults.replay(IntNode.valueOf(42), replay.execution(), replay.result()));
    assertThat(rendered.get("id").asInt()).isEqualTo(42);
    assertThat(rendered.at("/result/content/0/text").asText()).isEqualTo("T-1");
    assertThat(rendered.at("/result/_meta/dev.tally~1replay/executionId").asText())
        .isEqualTo(first.inFlight().id().value());
  }

  @Test
  void deliveredExecutionReleasesFingerprintAfterTheAttachWindowSoAnIdenticalCallIsANewAction() {
    Decision.Dispatch first = (Decision.Dispatch) admit(call("create_ticket", "{\"title\":\"a\"}"));
    first
        .inFlight()
        .completed(200, "{}".getBytes(StandardCharsets.UTF_8), false)
        .toCompletableFuture()
        .join();
    first.inFlight().delivered().toCompletableFuture().join();
    clock.advance(ToolContract.DEFAULT_REPLAY_WINDOW);
    // A delivery is a socket write, no proof of receipt: inside the attach window a replay.
    assertThat(admit(call("create_ticket", "{\"title\":\"a\"}")))
        .isInstanceOf(Decision.Replay.class);
    clock.advance(ToolContract.DEFAULT_ATTACH_WINDOW);

    Decision second = admit(call("create_ticket", "{\"title\":\"a\"}"));
    assertThat(second).isInstanceOf(Decision.Dispatch.class);
    assertThat(((Decision.Dispatch) second).inFlight().id()).isNotEqualTo(first.inFlight().id());
  }

  @Test
  void runningExecutionIsAttachedAndSettlesToTheResult() {
    Decision.Dispatch first = (Decision.Dispatch) admit(call("create_ticket", "{\"title\":\"a\"}"));
    Decision second = admit(call("create_ticket", "{\"title\":\"a\"}"));
    assertThat(second).isInstanceOf(Decision.Attach.class);
    CompletableFuture<Decision> settled =
        ((Decision.Attach) second).settled().toCompletableFuture();
    assertThat(settled).isNotDone();
    first
        .inFlight()
        .completed(200, "{\"ok\":true}".getBytes(StandardCharsets.UTF_8), false)
        .toCompletableFuture()
        .join();
    Decision d = settled.orTimeout(5, TimeUnit.SECONDS).join();
    assertThat(d).isInstanceOf(Decision.Replay.class);
    assertThat(new String(((Decision.Replay) d).result(), StandardCharsets.UTF_8))
        .isEqualTo("{\"ok\":true}");
  }

  @Test
  void attachedRetryReplaysTheResultEvenIfItWasDeliveredBeforeTheWaitWoke() {
    // A store whose waits wake late: the waiter sees the latest version, already DELIVERED
    // (a replica over a shared database sees only the latest version, not every step).
    CompletableFuture<Void> wake = new CompletableFuture<>();
    ExecutionStore lagging =
        new dev.tally.core.store.ForwardingExecutionStore(store) {
          @Override
          public java.util.concurrent.CompletionStage<java.util.Optional<Execution>> awaitChange(
              dev.tally.core.execution.ExecutionId id, long afterVersion, Duration maxWait) {
            return wake.thenCompose(v -> delegate().find(id));
          }
        };
    Gate waiter =
        Gate.builder(lagging, KEYS)
            .options(GateOptions.defaults("owner-b"))
            .contracts(ContractRegistry.of(contracts, ToolContract.defaultFor("default")))
            .actors(h -> "test-caller")
            .clock(clock)
            .build();
    try {
      Decision.Dispatch first =
          (Decision.Dispatch) admit(call("create_ticket", "{\"title\":\"d\"}"));
      Decision second = admit(waiter, call("create_ticket", "{\"title\":\"d\"}"));
      assertThat(second).isInstanceOf(Decision.Attach.class);
      first
          .inFlight()
          .completed(200, "{\"ok\":1}".getBytes(StandardCharsets.UTF_8), false)
          .toCompletableFuture()
          .join();
      first.inFlight().delivered().toCompletableFuture().join();
      wake.complete(null);
      Decision d =
          ((Decision.Attach) second)
              .settled()
              .toCompletableFuture()
              .orTimeout(5, TimeUnit.SECONDS)
              .join();
      assertThat(d)
          .isInstanceOfSatisfying(
              Decision.Replay.class,
              r -> assertThat(r.execution().id()).isEqualTo(first.inFlight().id()));
    } finally {
      waiter.close();
    }
  }

  @Test
  void attachWaitEndsWithInProgress() {
    admit(call("slow", "{}"));
    Decision second = admit(call("slow", "{}"));
    clock.advance(Duration.ofMillis(100));
    Decision d =
        ((Decision.Attach) second)
            .settled()
            .toCompletableFuture()
            .orTimeout(5, TimeUnit.SECONDS)
            .join();
    assertThat(d)
        .isInstanceOfSatisfying(
            Decision.Respond.class,
            r -> assertThat(r.code()).isEqualTo(TallyCode.IDEMPOTENCY_IN_PROGRESS));
  }

  @Test
  void sixtyFourConcurrentIdenticalCallsDispatchOnce() throws Exception {
    int n = 64;
    ExecutorService pool = Executors.newFixedThreadPool(16);
    CountDownLatch start = new CountDownLatch(1);
    List<CompletableFuture<Decision>> all = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      all.add(
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  start.await();
                } catch (InterruptedException e) {
                  throw new IllegalStateException(e);
                }
                return admit(call("create_ticket", "{\"title\":\"storm\"}"));
              },
              pool));
    }
    start.countDown();
    List<Decision> decisions = all.stream().map(CompletableFuture::join).toList();
    pool.shutdown();
    List<Decision.Dispatch> dispatches =
        decisions.stream()
            .filter(d -> d instanceof Decision.Dispatch)
            .map(d -> (Decision.Dispatch) d)
            .toList();
    assertThat(dispatches).hasSize(1);
    dispatches
        .get(0)
        .inFlight()
        .completed(200, "{\"n\":1}".getBytes(StandardCharsets.UTF_8), false)
        .toCompletableFuture()
        .join();
    for (Decision d : decisions) {
      if (d instanceof Decision.Attach a) {
        assertThat(a.settled().toCompletableFuture().orTimeout(5, TimeUnit.SECONDS).join())
            .isInstanceOf(Decision.Replay.class);
      } else if (!(d instanceof Decision.Dispatch)) {
        assertThat(d).isInstanceOf(Decision.Replay.class);
      }
    }
  }

  // ---- idempotency keys --------------------------------------------------------------

  @Test
  void sameKeySameArgumentsActsOnPriorExecutionEvenAfterDelivery() {
    Decision.Dispatch first =
        (Decision.Dispatch)
            admit(call("create_ticket", "{\"title\":\"a\",\"idempotencyKey\":\"K-1\"}"));
    first
        .inFlight()
        .completed(200, "{\"t\":1}".getBytes(StandardCharsets.UTF_8), false)
        .toCompletableFuture()
        .join();
    first.inFlight().delivered().toCompletableFuture().join();
    Decision again = admit(call("create_ticket", "{\"idempotencyKey\":\"K-1\",\"title\":\"a\"}"));
    assertThat(again).isInstanceOf(Decision.Replay.class);
  }

  @Test
  void sameKeyDifferentArgumentsIsKeyReused() {
    admit(call("create_ticket", "{\"title\":\"a\",\"idempotencyKey\":\"K-2\"}"));
    Decision d = admit(call("create_ticket", "{\"title\":\"b\",\"idempotencyKey\":\"K-2\"}"));
    assertThat(d)
        .isInstanceOfSatisfying(
            Decision.Respond.class,
            r -> assertThat(r.code()).isEqualTo(TallyCode.IDEMPOTENCY_KEY_REUSED));
  }

  @Test
  void keyFromHeaderWorksLikeTheArgument() {
    admit(call("create_ticket", "{\"title\":\"a\"}", Map.of("Idempotency-Key", "K-3")));
    Decision d = admit(call("create_ticket", "{\"title\":\"a\",\"idempotencyKey\":\"K-3\"}"));
    assertThat(d).isInstanceOf(Decision.Attach.class);
  }

  @Test
  void failureBeforeAnyEffectReleasesTheKey() {
    Decision.Dispatch first =
        (Decision.Dispatch)
            admit(call("create_ticket", "{\"title\":\"a\",\"idempotencyKey\":\"K-4\"}"));
    first.inFlight().failedBeforeEffect(0, "connection refused").toCompletableFuture().join();
    Decision d = admit(call("create_ticket", "{\"title\":\"a\",\"idempotencyKey\":\"K-4\"}"));
    assertThat(d).isInstanceOf(Decision.Dispatch.class);
    assertThat(((Decision.Dispatch) d).inFlight().id()).isNotEqualTo(first.inFlight().id());
  }

  @Test
  void invalidKeysAreRefusedWithoutARecord() {
    for (String bad :
        List.of("\"\"", "\"" + "é".repeat(201) + "\"", "\"half \\ud800\"", "17", "{}")) {
      Decision d = admit(call("create_ticket", "{\"title\":\"a\",\"idempotencyKey\":" + bad + "}"));
      assertThat(d)
          .as(bad)
          .isInstanceOfSatisfying(
              Decision.Refuse.class,
              r -> assertThat(r.error().code()).isEqualTo(TallyError.Code.INVALID_IDEMPOTENCY_KEY));
    }
    Decision ok =
        admit(
            call(
                "create_ticket",
                "{\"title\":\"a\",\"idempotencyKey\":\"" + "x".repeat(200) + "\"}"));
    assertThat(ok).isInstanceOf(Decision.Dispatch.class);
  }

  @Test
  void anArgumentKeyIsAnyTextOfUpTo200Characters() {
    // Steel's rule: not only ASCII. 200 code points, some outside the BMP (two chars each).
    String key = "Zahlung für Jürgen — 支払い 🚀 " + "ß".repeat(170);
    assertThat(key.codePointCount(0, key.length())).isLessThanOrEqualTo(200);
    Decision first =
        admit(
            call(
                "create_ticket",
                "{\"title\":\"a\",\"idempotencyKey\":" + GateTest.quoted(key) + "}"));
    assertThat(first).isInstanceOf(Decision.Dispatch.class);
    Decision again =
        admit(
            call(
                "create_ticket",
                "{\"title\":\"a\",\"idempotencyKey\":" + GateTest.quoted(key) + "}"));
    assertThat(again).isInstanceOf(Decision.Attach.class);
  }

  @Test
  void aHeaderKeyStaysVisibleAscii() {
    Decision d =
        admit(call("create_ticket", "{\"title\":\"a\"}", Map.of("Idempotency-Key", "with space")));
    assertThat(d)
        .isInstanceOfSatisfying(
            Decision.Refuse.class,
            r -> {
              assertThat(r.error().code()).isEqualTo(TallyError.Code.INVALID_IDEMPOTENCY_KEY);
              assertThat(r.error().code().isValidation()).isTrue();
              assertThat(r.error().message()).doesNotContain("with space");
            });
  }

  static String quoted(String s) {
    try {
      return JSON.writeValueAsString(s);
    } catch (Exception e) {
      throw new IllegalArgumentException(e);
    }
  }

  @Test
  void headerAndArgumentKeysMustAgree() {
    Decision d =
        admit(call("create_ticket", "{\"idempotencyKey\":\"A\"}", Map.of("Idempotency-Key", "B")));
    assertThat(d)
        .isInstanceOfSatisfying(
            Decision.Refuse.class,
            r -> assertThat(r.error().message()).doesNotContain("\"A\"").contains("differ"));
  }

  // ---- actor scoping -----------------------------------------------------------------

  @Test
  void anotherActorNeverAttachesReplaysOrLearnsOfTheExecution() {
    Decision.Dispatch a =
        (Decision.Dispatch)
            admit(
                call(
                    "create_ticket",
                    "{\"title\":\"a\",\"idempotencyKey\":\"K-5\"}",
                    Map.of("X-Actor", "alice")));
    a.inFlight()
        .completed(200, "{}".getBytes(StandardCharsets.UTF_8), false)
        .toCompletableFuture()
        .join();
    a.inFlight().notDelivered().toCompletableFuture().join();
    Decision byKey =
        admit(
            call(
                "create_ticket",
                "{\"title\":\"a\",\"idempotencyKey\":\"K-5\"}",
                Map.of("X-Actor", "bob")));
    Decision byFingerprint =
        admit(call("create_ticket", "{\"title\":\"a\"}", Map.of("X-Actor", "bob")));
    assertThat(byKey).isInstanceOf(Decision.Dispatch.class);
    assertThat(byFingerprint).isInstanceOf(Decision.Dispatch.class);
    assertThat(((Decision.Dispatch) byKey).inFlight().id()).isNotEqualTo(a.inFlight().id());
  }

  @Test
  void explicitIntentScopeSeparatesRuns() {
    admit(call("create_ticket", "{\"title\":\"a\"}", Map.of("Tally-Intent-Scope", "run-1")));
    Decision other =
        admit(call("create_ticket", "{\"title\":\"a\"}", Map.of("Tally-Intent-Scope", "run-2")));
    Decision same =
        admit(call("create_ticket", "{\"title\":\"a\"}", Map.of("Tally-Intent-Scope", "run-1")));
    assertThat(other).isInstanceOf(Decision.Dispatch.class);
    assertThat(same).isInstanceOf(Decision.Attach.class);
  }

  // ---- unknown outcomes --------------------------------------------------------------

  @Test
  void irreversibleAfterUnknownOutcomeIsReportedNeverRedispatched() {
    Decision.Dispatch first = (Decision.Dispatch) admit(call("create_ticket", "{\"title\":\"a\"}"));
    first.inFlight().unknown("upstream reset").toCompletableFuture().join();
    Decision d = admit(call("create_ticket", "{\"title\":\"a\"}"));
    assertThat(d)
        .isInstanceOfSatisfying(
            Decision.Respond.class,
            r -> {
              assertThat(r.code()).isEqualTo(TallyCode.OUTCOME_UNKNOWN);
              assertThat(r.execution().id()).isEqualTo(first.inFlight().id());
            });
  }

  @Test
  void keyedAfterUnknownOutcomeIsRedispatchedWithTheSameExecutionId() {
    Decision.Dispatch first = (Decision.Dispatch) admit(call("deploy", "{\"v\":\"1.2\"}"));
    first.inFlight().unknown("upstream reset").toCompletableFuture().join();
    Decision d = admit(call("deploy", "{\"v\":\"1.2\"}"));
    assertThat(d)
        .isInstanceOfSatisfying(
            Decision.Dispatch.class,
            r -> {
              assertThat(r.inFlight().id()).isEqualTo(first.inFlight().id());
              assertThat(r.inFlight().continued()).isTrue();
            });
  }

  @Test
  void deadOwnersDispatchBecomesOutcomeUnknownWhenItsLeaseLapses() {
    Decision.Dispatch first = (Decision.Dispatch) admit(call("create_ticket", "{\"title\":\"a\"}"));
    gate.close(); // owner-a stops heartbeating
    clock.advance(GateOptions.DEFAULT_LEASE.plusSeconds(1));
    try (Gate other = newGate("owner-b", KEYS)) {
      Decision d = admit(other, call("create_ticket", "{\"title\":\"a\"}"));
      assertThat(d)
          .isInstanceOfSatisfying(
              Decision.Respond.class,
              r -> {
                assertThat(r.code()).isEqualTo(TallyCode.OUTCOME_UNKNOWN);
                assertThat(r.execution().id()).isEqualTo(first.inFlight().id());
              });
    }
  }

  @Test
  void reaperMarksLapsedDispatchesUnknown() {
    Decision.Dispatch first = (Decision.Dispatch) admit(call("create_ticket", "{\"title\":\"a\"}"));
    gate.close();
    clock.advance(GateOptions.DEFAULT_LEASE.plusSeconds(1));
    try (Gate other = newGate("owner-b", KEYS)) {
      assertThat(other.tickLeases().toCompletableFuture().join()).isEqualTo(1);
    }
    assertThat(store.find(first.inFlight().id()).toCompletableFuture().join().orElseThrow().state())
        .isEqualTo(ExecutionState.OUTCOME_UNKNOWN);
  }

  @Test
  void heartbeatKeepsALiveExecutionAttachable() {
    Decision.Dispatch first = (Decision.Dispatch) admit(call("create_ticket", "{\"title\":\"a\"}"));
    clock.advance(GateOptions.DEFAULT_LEASE.minusSeconds(5));
    gate.tickLeases().toCompletableFuture().join();
    clock.advance(Duration.ofSeconds(10));
    Execution e = store.find(first.inFlight().id()).toCompletableFuture().join().orElseThrow();
    assertThat(e.leaseLapsed(clock.instant())).isFalse();
    assertThat(admit(call("create_ticket", "{\"title\":\"a\"}")))
        .isInstanceOf(Decision.Attach.class);
  }

  // ---- upstream errors ---------------------------------------------------------------

  @Test
  void invalidParamsErrorFailsAndReleases() {
    Decision.Dispatch first = (Decision.Dispatch) admit(call("create_ticket", "{\"title\":\"a\"}"));
    first.inFlight().rpcError(200, new RpcError(-32602, "bad")).toCompletableFuture().join();
    assertThat(first.inFlight().execution().state()).isEqualTo(ExecutionState.FAILED);
    assertThat(admit(call("create_ticket", "{\"title\":\"a\"}")))
        .isInstanceOf(Decision.Dispatch.class);
  }

  @Test
  void aFirstAttemptThatFailedReleasesItsIntentSoTheRetryRunsAgain() {
    Decision.Dispatch first = (Decision.Dispatch) admit(call("create_ticket", "{\"title\":\"f\"}"));
    first
        .inFlight()
        .completed(200, "{\"content\":[],\"isError\":true}".getBytes(StandardCharsets.UTF_8), true)
        .toCompletableFuture()
        .join();
    assertThat(first.inFlight().execution().state()).isEqualTo(ExecutionState.FAILED);
    assertThat(admit(call("create_ticket", "{\"title\":\"f\"}")))
        .isInstanceOf(Decision.Dispatch.class);

    Decision.Dispatch keyed =
        (Decision.Dispatch)
            admit(call("create_ticket", "{\"title\":\"g\"}", Map.of("Idempotency-Key", "k-1")));
    keyed.inFlight().rpcError(200, new RpcError(-32603, "boom")).toCompletableFuture().join();
    assertThat(keyed.inFlight().execution().state()).isEqualTo(ExecutionState.FAILED);
    Decision again =
        admit(call("create_ticket", "{\"title\":\"g\"}", Map.of("Idempotency-Key", "k-1")));
    assertThat(again).isInstanceOf(Decision.Dispatch.class);
    assertThat(((Decision.Dispatch) again).inFlight().id()).isNotEqualTo(keyed.inFlight().id());
  }

  @Test
  void aContractThatKeepsErrorsReplaysTheFailedResult() {
    Decision.Dispatch first = (Decision.Dispatch) admit(call("transfer", "{\"amount\":1}"));
    first
        .inFlight()
        .completed(200, "{\"content\":[],\"isError\":true}".getBytes(StandardCharsets.UTF_8), true)
        .toCompletableFuture()
        .join();
    first.inFlight().notDelivered().toCompletableFuture().join();
    assertThat(admit(call("transfer", "{\"amount\":1}"))).isInstanceOf(Decision.Replay.class);
  }

  @Test
  void aFailedRedispatchAfterAnUnknownOutcomeKeepsTheIntent() {
    Decision.Dispatch first = (Decision.Dispatch) admit(call("deploy", "{\"v\":1}"));
    first.inFlight().unknown("reset").toCompletableFuture().join();
    Decision.Dispatch again = (Decision.Dispatch) admit(call("deploy", "{\"v\":1}"));
    assertThat(again.inFlight().id()).isEqualTo(first.inFlight().id());
    again
        .inFlight()
        .completed(200, "{\"content\":[],\"isError\":true}".getBytes(StandardCharsets.UTF_8), true)
        .toCompletableFuture()
        .join();
    // The first attempt may have run: its failure now is the execution's outcome, replayed.
    assertThat(again.inFlight().execution().state()).isEqualTo(ExecutionState.COMPLETED);
    assertThat(admit(call("deploy", "{\"v\":1}"))).isInstanceOf(Decision.Replay.class);
  }

  @Test
  void internalErrorIsStoredAndReplayedAsTheSameError() throws Exception {
    Decision.Dispatch first = (Decision.Dispatch) admit(call("transfer", "{\"title\":\"a\"}"));
    first.inFlight().rpcError(200, new RpcError(-32603, "boom")).toCompletableFuture().join();
    first.inFlight().notDelivered().toCompletableFuture().join();
    Decision d = admit(call("transfer", "{\"title\":\"a\"}"));
    Decision.Replay r = (Decision.Replay) d;
    JsonNode rendered =
        JSON.readTree(ToolResults.replay(IntNode.valueOf(3), r.execution(), r.result()));
    assertThat(rendered.at("/error/code").asInt()).isEqualTo(-32603);
    assertThat(rendered.at("/error/data/dev.tally~1replay/executionId").asText())
        .isEqualTo(first.inFlight().id().value());
  }

  @Test
  void aReplayedErrorKeepsItsDataEveryDigitAndGetsTheMarkerBesideIt() throws Exception {
    Decision.Dispatch first = (Decision.Dispatch) admit(call("transfer", "{\"title\":\"d\"}"));
    byte[] data =
        "{\"retryAfter\":12345678901234567.890,\"reason\":\"quota\"}"
            .getBytes(java.nio.charset.StandardCharsets.UTF_8);
    first
        .inFlight()
        .rpcError(200, new RpcError(-32000, "quota"), data)
        .toCompletableFuture()
        .join();
    first.inFlight().notDelivered().toCompletableFuture().join();

    Decision.Replay r = (Decision.Replay) admit(call("transfer", "{\"title\":\"d\"}"));
    String rendered =
        new String(
            ToolResults.replay(IntNode.valueOf(4), r.execution(), r.result()),
            java.nio.charset.StandardCharsets.UTF_8);
    JsonNode n = JSON.readTree(rendered);
    assertThat(n.at("/error/code").asInt()).isEqualTo(-32000);
    assertThat(n.at("/error/message").asText()).isEqualTo("quota");
    assertThat(n.at("/error/data/reason").asText()).isEqualTo("quota");
    assertThat(rendered).contains("\"retryAfter\":12345678901234567.890");
    assertThat(n.at("/error/data/dev.tally~1replay/executionId").asText())
        .isEqualTo(first.inFlight().id().value());
  }

  @Test
  void aReplayedErrorWithDataThatIsNoObjectKeepsItAsItWas() throws Exception {
    Decision.Dispatch first = (Decision.Dispatch) admit(call("transfer", "{\"title\":\"e\"}"));
    byte[] data = "[1,2]".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    first.inFlight().rpcError(200, new RpcError(-32001, "x"), data).toCompletableFuture().join();

    Decision.Replay r = (Decision.Replay) admit(call("transfer", "{\"title\":\"e\"}"));
    JsonNode n = JSON.readTree(ToolResults.replay(IntNode.valueOf(5), r.execution(), r.result()));
    assertThat(n.at("/error/data").toString()).isEqualTo("[1,2]");
  }

  @Test
  void inputRequiredLeavesExecutionOpenAndTheFollowUpContinuesIt() {
    Decision.Dispatch first = (Decision.Dispatch) admit(call("create_ticket", "{\"title\":\"a\"}"));
    first.inFlight().inputRequired(200).toCompletableFuture().join();
    Decision d =
        admit(
            new ToolCall(
                "create_ticket", json("{\"title\":\"a\"}"), null, true, Headers.NONE, "http://up"));
    assertThat(d)
        .isInstanceOfSatisfying(
            Decision.Dispatch.class,
            r -> {
              assertThat(r.inFlight().id()).isEqualTo(first.inFlight().id());
              assertThat(r.inFlight().continued()).isTrue();
            });
  }

  @Test
  void confirmationRequiredAnswersPendingAndRetriesGetTheSame() {
    contracts.put(
        "pay",
        withConfirmation(
            ToolContract.of("pay", ToolClass.IRREVERSIBLE, ToolContract.Source.CONFIGURATION)));
    gate.close();
    gate = newGate("owner-a", KEYS);
    Decision d1 = admit(call("pay", "{\"amount\":5}"));
    Decision d2 = admit(call("pay", "{\"amount\":5}"));
    assertThat(d1)
        .isInstanceOfSatisfying(
            Decision.Respond.class,
            r -> assertThat(r.code()).isEqualTo(TallyCode.PENDING_CONFIRMATION));
    assertThat(d2)
        .isInstanceOfSatisfying(
            Decision.Respond.class,
            r -> {
              assertThat(r.code()).isEqualTo(TallyCode.PENDING_CONFIRMATION);
              assertThat(r.execution().id()).isEqualTo(((Decision.Respond) d1).execution().id());
            });
  }

  // ---- keys, arguments, store --------------------------------------------------------

  @Test
  void retryAfterKeyRotationStillFindsTheExecution() {
    Decision.Dispatch first = (Decision.Dispatch) admit(call("create_ticket", "{\"title\":\"a\"}"));
    first
        .inFlight()
        .completed(200, "{}".getBytes(StandardCharsets.UTF_8), false)
        .toCompletableFuture()
        .join();
    first.inFlight().notDelivered().toCompletableFuture().join();
    KeyRing rotated =
        KeyRing.of(HmacKey.of("k2", bytes(32, 2)), List.of(HmacKey.of("k1", bytes(32, 1))));
    try (Gate after = newGate("owner-a", rotated)) {
      assertThat(admit(after, call("create_ticket", "{\"title\":\"a\"}")))
          .isInstanceOf(Decision.Replay.class);
    }
  }

  @Test
  void argumentsThatCannotBeCanonicalizedAreRefusedWithTheirPointer() {
    Decision d = admit(call("create_ticket", "{\"title\":\"\\ud800\"}"));
    assertThat(d)
        .isInstanceOfSatisfying(
            Decision.Refuse.class,
            r -> {
              assertThat(r.error().code()).isEqualTo(TallyError.Code.INVALID_ARGUMENTS);
              assertThat(r.error().message()).contains("/title");
            });
  }

  @Test
  void storeThatCannotWriteRefusesTheCallFailClosed() {
    store.close();
    Decision d = admit(call("create_ticket", "{\"title\":\"a\"}"));
    assertThat(d)
        .isInstanceOfSatisfying(
            Decision.Refuse.class,
            r -> assertThat(r.error().code()).isEqualTo(TallyError.Code.STORE_UNAVAILABLE));
  }

  @Test
  void drainRecordsUnfinishedExecutionsAsUnknown() {
    Decision.Dispatch first = (Decision.Dispatch) admit(call("create_ticket", "{\"title\":\"a\"}"));
    assertThat(gate.inFlight()).isEqualTo(1);
    assertThat(
            gate.drain(Duration.ZERO).toCompletableFuture().orTimeout(5, TimeUnit.SECONDS).join())
        .isEqualTo(1);
    assertThat(store.find(first.inFlight().id()).toCompletableFuture().join().orElseThrow().state())
        .isEqualTo(ExecutionState.OUTCOME_UNKNOWN);
    assertThat(gate.inFlight()).isZero();
  }

  @Test
  void respondRendersActivityRecordAsErrorResult() throws Exception {
    Decision.Dispatch first =
        (Decision.Dispatch) admit(call("create_ticket", "{\"title\":\"secret-title-value\"}"));
    first.inFlight().unknown("reset").toCompletableFuture().join();
    Decision.Respond r =
        (Decision.Respond) admit(call("create_ticket", "{\"title\":\"secret-title-value\"}"));
    String text =
        new String(
            ToolResults.respond(IntNode.valueOf(9), r.code(), r.execution()),
            StandardCharsets.UTF_8);
    JsonNode json = JSON.readTree(text);
    assertThat(json.at("/result/isError").asBoolean()).isTrue();
    assertThat(json.at("/result/structuredContent/tally/code").asText())
        .isEqualTo("OUTCOME_UNKNOWN");
    assertThat(json.at("/result/structuredContent/tally/state").asText())
        .isEqualTo("outcome_unknown");
    assertThat(json.at("/result/structuredContent/tally/timeline/dispatched_at").asText())
        .isNotEmpty();
    assertThat(text).doesNotContain("secret-title-value");
  }

  // ---- helpers -----------------------------------------------------------------------

  Decision admit(ToolCall c) {
    return admit(gate, c);
  }

  static Decision admit(Gate g, ToolCall c) {
    return g.admit(c).toCompletableFuture().orTimeout(10, TimeUnit.SECONDS).join();
  }

  static ToolCall call(String tool, String args) {
    return call(tool, args, Map.of());
  }

  static ToolCall call(String tool, String args, Map<String, String> headers) {
    Headers h =
        name ->
            headers.entrySet().stream()
                .filter(e -> e.getKey().equalsIgnoreCase(name))
                .map(Map.Entry::getValue)
                .findFirst()
                .orElse(null);
    return new ToolCall(tool, json(args), null, false, h, "http://up");
  }

  static JsonNode json(String s) {
    try {
      return JSON.readTree(s);
    } catch (Exception e) {
      throw new IllegalArgumentException(e);
    }
  }

  static byte[] bytes(int n, int fill) {
    byte[] b = new byte[n];
    Arrays.fill(b, (byte) fill);
    return b;
  }

  static ToolContract withAttachWait(ToolContract c, Duration wait) {
    return new ToolContract(
        c.tool(),
        c.toolClass(),
        c.source(),
        c.fingerprint(),
        c.attachWindow(),
        wait,
        c.resultRetention(),
        c.unknownOutcome(),
        c.statusTool(),
        c.confirmationRequired(),
        c.onDisconnect());
  }

  static ToolContract withConfirmation(ToolContract c) {
    return new ToolContract(
        c.tool(),
        c.toolClass(),
        c.source(),
        FingerprintRules.NONE,
        c.attachWindow(),
        c.attachWait(),
        c.resultRetention(),
        UnknownOutcomePolicy.REPORT,
        null,
        true,
        DisconnectBehaviour.FINISH);
  }

  static Instant t0() {
    return Instant.parse("2026-11-30T12:00:00Z");
  }
}
