package dev.tally.core.gate;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tally.core.audit.AuditFiles;
import dev.tally.core.audit.AuditJournals;
import dev.tally.core.audit.AuditOptions;
import dev.tally.core.audit.AuditTimeline;
import dev.tally.core.audit.AuditVerifier;
import dev.tally.core.audit.AuditedExecutionStore;
import dev.tally.core.audit.Canonicalizer;
import dev.tally.core.config.WritesConfig;
import dev.tally.core.contract.ContractRegistry;
import dev.tally.core.contract.FingerprintRules;
import dev.tally.core.contract.ToolClass;
import dev.tally.core.contract.ToolContract;
import dev.tally.core.contract.UnknownOutcomePolicy;
import dev.tally.core.fingerprint.HmacKey;
import dev.tally.core.fingerprint.KeyRing;
import dev.tally.core.mcp.Headers;
import dev.tally.core.mcp.RpcOutcome;
import dev.tally.core.store.ExecutionStore;
import dev.tally.core.store.MemoryExecutionStore;
import dev.tally.core.testing.MutableClock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Write-control changes and status lookups are in the audit chain (issue 18), whoever makes them
 * (the sidecar's admin routes and the filter's servlet both move the gate's one switch, and both
 * adapters' lookups go through {@link StatusChecks}): {@code control} and {@code status_lookup}
 * entries, shown by {@code tally audit show}, verified with the rest, holding no argument value.
 */
class ControlAuditTest {
  static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;
  MutableClock clock;
  AuditJournals journals;
  ExecutionStore store;
  Gate gate;
  final AtomicReference<String> answer = new AtomicReference<>();

  @BeforeEach
  void setUp() {
    clock = MutableClock.create();
    journals = AuditJournals.open(dir, AuditOptions.defaults().withClock(clock));
    store = AuditedExecutionStore.wrap(MemoryExecutionStore.create(), journals);
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
            .audit(journals)
            .writes(WriteControl.of(WritesConfig.DEFAULT))
            .statusLookup(
                (tool, args, headers, modern) -> {
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
    journals.close();
  }

  private Decision admit() throws Exception {
    return gate.admit(
            new ToolCall(
                "refund",
                (ObjectNode) JSON.readTree("{\"order\":\"order-secret-9931\"}"),
                null,
                false,
                Headers.NONE,
                "http://up"))
        .toCompletableFuture()
        .join();
  }

  private String activity() throws Exception {
    journals.flush();
    return Files.readString(dir.resolve(AuditFiles.ACTIVITY), StandardCharsets.UTF_8);
  }

  @Test
  void everyWriteControlChangeIsAControlEntryInTheVerifiedChain() throws Exception {
    WriteSwitch s = gate.writes().writeSwitch();
    s.setGlobal(false);
    s.setActor("bob", true);
    s.setActor("bob", null);
    s.revoke("eve");
    s.restore("eve");
    String all = activity();
    List<String> controls = all.lines().filter(l -> l.contains("\"type\":\"control\"")).toList();
    assertThat(controls).hasSize(5);
    assertThat(controls.get(0))
        .contains("\"applies_to\":\"all\"")
        .contains("\"event\":\"write_switch\"")
        .contains("\"position\":\"off\"");
    assertThat(controls.get(1)).contains("\"actor\":\"bob\"").contains("\"position\":\"on\"");
    assertThat(controls.get(2)).contains("\"position\":\"cleared\"");
    assertThat(controls.get(3)).contains("\"event\":\"revoke\"").contains("\"actor\":\"eve\"");
    assertThat(controls.get(4)).contains("\"event\":\"restore\"");
    String shown = AuditTimeline.render(dir, Optional.empty());
    assertThat(shown)
        .contains("Write control")
        .contains("writes off  everyone")
        .contains("writes on  bob")
        .contains("revoke  eve");
    assertThat(AuditVerifier.create(Canonicalizer.jcs()).verify(dir, Optional.empty()).bad())
        .isEmpty();
  }

  @Test
  void everyStatusLookupIsInTheExecutionsTimelineWithWhatItAnswered() throws Exception {
    Decision.Dispatch d = (Decision.Dispatch) admit();
    d.inFlight().unknown("connection lost").toCompletableFuture().join();
    String id = d.inFlight().id().value();
    answer.set("{\"structuredContent\":{\"status\":\"pending\"}}");
    admit(); // unrecognized: stays unknown
    answer.set(
        "{\"structuredContent\":{\"status\":\"completed\",\"result\":"
            + "{\"content\":[{\"type\":\"text\",\"text\":\"refunded R-7\"}]}}}");
    assertThat(admit()).isInstanceOf(Decision.Replay.class);
    String all = activity();
    List<String> lookups =
        all.lines().filter(l -> l.contains("\"type\":\"status_lookup\"")).toList();
    assertThat(lookups).hasSize(2);
    assertThat(lookups.get(0))
        .contains("\"answer\":\"unrecognized\"")
        .contains("\"attempt\":1")
        .contains("\"status_tool\":\"refund_status\"")
        .contains("\"execution\":\"" + id + "\"");
    assertThat(lookups.get(1)).contains("\"answer\":\"completed\"").contains("\"attempt\":2");
    assertThat(all).doesNotContain("order-secret-9931").doesNotContain("refunded R-7");
    String timeline = AuditTimeline.render(dir, Optional.of(id));
    assertThat(timeline)
        .contains("status lookup: unrecognized")
        .contains("status lookup: completed")
        .contains("asked refund_status (attempt 2)");
    assertThat(AuditVerifier.create(Canonicalizer.jcs()).verify(dir, Optional.empty()).bad())
        .isEmpty();
  }

  @Test
  void anAnswerIsNamedInTheAuditsWords() {
    assertThat(StatusChecks.answerOf(Optional.empty())).isEqualTo("unanswered");
    assertThat(
            StatusChecks.answerOf(
                Optional.of(
                    new RpcOutcome.Result("{}".getBytes(StandardCharsets.UTF_8), true, false))))
        .isEqualTo("error");
    assertThat(
            StatusChecks.answerOf(
                Optional.of(
                    new RpcOutcome.Result(
                        "{\"structuredContent\":{\"status\":\"not_found\"}}"
                            .getBytes(StandardCharsets.UTF_8),
                        false,
                        false))))
        .isEqualTo("not_found");
  }
}
