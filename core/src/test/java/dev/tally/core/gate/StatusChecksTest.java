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
                (tool, args, headers) -> {
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
}
