package dev.tally.core.gate;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tally.core.contract.ContractRegistry;
import dev.tally.core.contract.FingerprintRules;
import dev.tally.core.contract.ToolClass;
import dev.tally.core.contract.ToolContract;
import dev.tally.core.contract.UnknownOutcomePolicy;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.fingerprint.HmacKey;
import dev.tally.core.fingerprint.KeyRing;
import dev.tally.core.mcp.Headers;
import dev.tally.core.mcp.RpcOutcome;
import dev.tally.core.mcp.TallyCode;
import dev.tally.core.store.ExecutionStore;
import dev.tally.core.testing.MutableClock;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A {@code status_check} contract's unknown outcome is settled from its status tool before the
 * retry is answered (issue 18): found → the found result is replayed; not found → failed and
 * released, the retry runs anew; no usable answer → {@code OUTCOME_UNKNOWN}, at most {@link
 * StatusChecks#MAX_ATTEMPTS} lookups.
 */
class StatusChecksTest {
  static final ObjectMapper JSON = new ObjectMapper();

  MutableClock clock;
  ExecutionStore store;
  Gate gate;
  final List<String> asked = new CopyOnWriteArrayList<>();
  final AtomicReference<String> answer = new AtomicReference<>();
  final AtomicReference<Map<String, String>> modernHeaders = new AtomicReference<>();

  @BeforeEach
  void setUp() {
    clock = GateFixtures.clock();
    store = GateFixtures.memoryStore(clock);
    ToolContract refund =
        new ToolContract(
            "refund",
            ToolClass.STATUS_CHECK,
            ToolContract.Source.CONFIGURATION,
            FingerprintRules.NONE,
            ToolContract.DEFAULT_ATTACH_WINDOW,
            ToolContract.DEFAULT_ATTACH_WAIT,
            ToolContract.DEFAULT_RESULT_RETENTION,
            UnknownOutcomePolicy.STATUS_CHECK,
            "refund_status",
            false,
            dev.tally.core.contract.DisconnectBehaviour.FINISH);
    gate =
        Gate.builder(store, KeyRing.of(HmacKey.of("k1", new byte[32])))
            .options(GateOptions.defaults("owner-a"))
            .contracts(ContractRegistry.of(Map.of("refund", refund), ToolContract.defaultFor("d")))
            .actors(h -> "alice")
            .clock(clock)
            .statusLookup(
                (tool, args, headers, modern) -> {
                  asked.add(tool + " " + new String(args, StandardCharsets.UTF_8));
                  String a = answer.get();
                  return CompletableFuture.completedFuture(
                      a == null
                          ? Optional.<RpcOutcome>empty()
                          : Optional.of(
                              new RpcOutcome.Result(
                                  a.getBytes(StandardCharsets.UTF_8), false, false)));
                })
            .build();
  }

  @AfterEach
  void tearDown() {
    gate.close();
    store.close();
  }

  private Decision admit() {
    try {
      return gate.admit(
              new ToolCall(
                  "refund",
                  (com.fasterxml.jackson.databind.node.ObjectNode)
                      JSON.readTree("{\"order\":\"o-1\"}"),
                  null,
                  false,
                  Headers.NONE,
                  "http://up"))
          .toCompletableFuture()
          .join();
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }

  private String unknownExecution() {
    Decision.Dispatch d = (Decision.Dispatch) admit();
    d.inFlight().unknown("connection lost").toCompletableFuture().join();
    return d.inFlight().id().value();
  }

  @Test
  void aFoundResultSettlesTheExecutionAndTheRetryReplaysIt() {
    String id = unknownExecution();
    answer.set(
        "{\"structuredContent\":{\"status\":\"completed\",\"result\":"
            + "{\"content\":[{\"type\":\"text\",\"text\":\"refunded R-7\"}]}}}");
    Decision retry = admit();
    assertThat(asked).containsExactly("refund_status {\"executionId\":\"" + id + "\"}");
    assertThat(retry)
        .isInstanceOfSatisfying(
            Decision.Replay.class,
            r -> {
              assertThat(r.execution().id().value()).isEqualTo(id);
              assertThat(new String(r.result(), StandardCharsets.UTF_8)).contains("refunded R-7");
            });
  }

  @Test
  void notFoundFailsAndReleasesTheExecutionSoTheRetryRunsAnew() {
    String id = unknownExecution();
    answer.set("{\"structuredContent\":{\"status\":\"not_found\"}}");
    Decision retry = admit();
    assertThat(retry)
        .isInstanceOfSatisfying(
            Decision.Dispatch.class, d -> assertThat(d.inFlight().id().value()).isNotEqualTo(id));
    assertThat(
            store
                .find(dev.tally.core.execution.ExecutionId.parse(id))
                .toCompletableFuture()
                .join()
                .orElseThrow()
                .state())
        .isEqualTo(ExecutionState.FAILED);
  }

  @Test
  void withoutAUsableAnswerTheRetryGetsOutcomeUnknownAndLookupsAreBounded() {
    unknownExecution();
    answer.set("{\"structuredContent\":{\"status\":\"maybe\"}}");
    for (int i = 0; i < StatusChecks.MAX_ATTEMPTS + 2; i++) {
      assertThat(admit())
          .isInstanceOfSatisfying(
              Decision.Respond.class,
              r -> assertThat(r.code()).isEqualTo(TallyCode.OUTCOME_UNKNOWN));
    }
    assertThat(asked).hasSize(StatusChecks.MAX_ATTEMPTS);
  }

  /**
   * A gate whose refund contract calls its status tool with {@code spec}; audit into {@code log}.
   */
  private void mappedGate(dev.tally.core.contract.StatusArguments spec, List<String> log) {
    gate.close();
    ToolContract refund =
        new ToolContract(
            "refund",
            ToolClass.STATUS_CHECK,
            ToolContract.Source.CONFIGURATION,
            FingerprintRules.NONE,
            ToolContract.DEFAULT_ATTACH_WINDOW,
            ToolContract.DEFAULT_ATTACH_WAIT,
            ToolContract.DEFAULT_RESULT_RETENTION,
            UnknownOutcomePolicy.STATUS_CHECK,
            "refund_status",
            false,
            dev.tally.core.contract.DisconnectBehaviour.FINISH,
            ToolContract.DEFAULT_REPLAY_WINDOW,
            true,
            spec);
    gate =
        Gate.builder(store, KeyRing.of(HmacKey.of("k1", new byte[32])))
            .options(GateOptions.defaults("owner-a"))
            .contracts(ContractRegistry.of(Map.of("refund", refund), ToolContract.defaultFor("d")))
            .actors(h -> "alice")
            .clock(clock)
            .audit(
                new dev.tally.core.audit.AuditSink() {
                  @Override
                  public void transition(
                      dev.tally.core.execution.Execution before,
                      dev.tally.core.execution.Execution after,
                      dev.tally.core.audit.SessionRef session) {}

                  @Override
                  public void retry(
                      dev.tally.core.execution.Execution execution,
                      dev.tally.core.audit.RetryOutcome outcome,
                      dev.tally.core.audit.SessionRef session,
                      java.time.Instant at) {}

                  @Override
                  public void session(dev.tally.core.audit.SessionSeen seen) {}

                  @Override
                  public void statusLookup(
                      dev.tally.core.execution.Execution execution,
                      String statusTool,
                      String answer,
                      int attempt,
                      java.time.Instant at) {
                    log.add(statusTool + " " + answer + " " + attempt);
                  }

                  @Override
                  public void flush() {}
                })
            .statusLookup(
                (tool, args, headers, modern) -> {
                  asked.add(tool + " " + new String(args, StandardCharsets.UTF_8));
                  modernHeaders.set(modern);
                  return CompletableFuture.completedFuture(Optional.<RpcOutcome>empty());
                })
            .build();
  }

  private Decision admitExact(String argumentsJson) {
    try {
      return gate.admit(
              new ToolCall(
                  "refund",
                  (com.fasterxml.jackson.databind.node.ObjectNode)
                      dev.tally.core.mcp.WireJson.defaults().strict().readTree(argumentsJson),
                  null,
                  false,
                  Headers.NONE,
                  "http://up"))
          .toCompletableFuture()
          .join();
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void mappedArgumentsComeFromTheRetrysArgumentsWithTheirExactNumbers() {
    List<String> log = new CopyOnWriteArrayList<>();
    mappedGate(
        new dev.tally.core.contract.StatusArguments(
            "ref", Map.of("orderId", "/order/id", "amount", "/order/amount")),
        log);
    String args = "{\"order\":{\"id\":\"o-1\",\"amount\":12345678901234567890.10},\"n\":1}";
    Decision.Dispatch d = (Decision.Dispatch) admitExact(args);
    d.inFlight().unknown("connection lost").toCompletableFuture().join();
    String id = d.inFlight().id().value();
    assertThat(admitExact(args))
        .isInstanceOfSatisfying(
            Decision.Respond.class, r -> assertThat(r.code()).isEqualTo(TallyCode.OUTCOME_UNKNOWN));
    assertThat(asked)
        .containsExactly(
            "refund_status {\"ref\":\""
                + id
                + "\",\"amount\":12345678901234567890.10,\"orderId\":\"o-1\"}");
    assertThat(log).containsExactly("refund_status unanswered 1");
  }

  @Test
  void aMappedArgumentMissingFromTheCallMeansNoLookupAndAnAuditedReason() {
    List<String> log = new CopyOnWriteArrayList<>();
    mappedGate(
        new dev.tally.core.contract.StatusArguments("executionId", Map.of("orderId", "/order/id")),
        log);
    String args = "{\"order\":{\"number\":7}}";
    Decision.Dispatch d = (Decision.Dispatch) admitExact(args);
    d.inFlight().unknown("connection lost").toCompletableFuture().join();
    assertThat(admitExact(args))
        .isInstanceOfSatisfying(
            Decision.Respond.class, r -> assertThat(r.code()).isEqualTo(TallyCode.OUTCOME_UNKNOWN));
    assertThat(asked).as("no lookup").isEmpty();
    assertThat(log).containsExactly("refund_status argument_missing 1");
  }

  /**
   * A stateless 2026-07-28 lookup must carry what a client of that era would send with the status
   * call, an {@code Mcp-Param-*} for each of the status tool's {@code x-mcp-header} parameters
   * included (a strict server refuses the call without them).
   */
  @Test
  void theLookupsModernHeadersMirrorTheStatusCallWithItsParameterHeaders() {
    mappedGate(
        new dev.tally.core.contract.StatusArguments("executionId", Map.of("region", "/region")),
        new CopyOnWriteArrayList<>());
    gate.paramHeaders().put("refund_status", Map.of("region", List.of("region")));
    String args = "{\"region\":\"eu-west\",\"amount\":3}";
    Decision.Dispatch d = (Decision.Dispatch) admitExact(args);
    d.inFlight().unknown("connection lost").toCompletableFuture().join();
    admitExact(args);
    assertThat(modernHeaders.get())
        .containsEntry("MCP-Protocol-Version", "2026-07-28")
        .containsEntry("Mcp-Method", "tools/call")
        .containsEntry("Mcp-Name", "refund_status")
        .containsEntry("Mcp-Param-region", "eu-west");
  }
}
