package dev.tally.core.gate;

import static dev.tally.core.gate.GateTest.KEYS;
import static dev.tally.core.gate.GateTest.admit;
import static dev.tally.core.gate.GateTest.call;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.core.contract.ContractRegistry;
import dev.tally.core.contract.ToolClass;
import dev.tally.core.contract.ToolContract;
import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.store.ExecutionStore;
import dev.tally.core.testing.MutableClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A delivered key-less execution keeps answering identical calls for its replay window only. */
class GateReplayWindowTest {
  private static final String ARGS = "{\"title\":\"a\"}";

  MutableClock clock;
  ExecutionStore store;
  Gate gate;

  @BeforeEach
  void setUp() {
    clock = GateFixtures.clock();
    store = GateFixtures.memoryStore(clock);
    ToolContract ticket =
        ToolContract.of("create_ticket", ToolClass.IRREVERSIBLE, ToolContract.Source.CONFIGURATION)
            .withReplayWindow(Duration.ofSeconds(3));
    ToolContract noWindow =
        ToolContract.of("send_mail", ToolClass.IRREVERSIBLE, ToolContract.Source.CONFIGURATION)
            .withReplayWindow(Duration.ZERO);
    ToolContract deploy =
        ToolContract.of("deploy", ToolClass.KEYED, ToolContract.Source.CONFIGURATION)
            .withReplayWindow(Duration.ZERO);
    gate =
        Gate.builder(store, KEYS)
            .options(GateOptions.defaults("owner-a"))
            .contracts(
                ContractRegistry.of(
                    Map.of("create_ticket", ticket, "send_mail", noWindow, "deploy", deploy),
                    ToolContract.defaultFor("default")))
            .actors(h -> "test-caller")
            .clock(clock)
            .build();
  }

  @AfterEach
  void tearDown() {
    gate.close();
    store.close();
  }

  @Test
  void anIdenticalCallInsideTheAttachWindowReplaysTheDeliveredResult() {
    InFlight first = deliveredCall("create_ticket", ARGS);
    clock.advance(ToolContract.DEFAULT_ATTACH_WINDOW.minusMillis(1));

    Decision retry = admit(gate, call("create_ticket", ARGS));

    assertThat(retry).isInstanceOf(Decision.Replay.class);
    Decision.Replay replay = (Decision.Replay) retry;
    assertThat(replay.execution().id()).isEqualTo(first.id());
    assertThat(replay.execution().state()).isEqualTo(ExecutionState.DELIVERED);
    assertThat(new String(replay.result(), StandardCharsets.UTF_8)).isEqualTo("{\"n\":1}");
  }

  @Test
  void anIdenticalCallAfterTheAttachWindowIsANewExecution() {
    InFlight first = deliveredCall("create_ticket", ARGS);
    clock.advance(ToolContract.DEFAULT_ATTACH_WINDOW);

    Decision next = admit(gate, call("create_ticket", ARGS));

    assertThat(next).isInstanceOf(Decision.Dispatch.class);
    assertThat(((Decision.Dispatch) next).inFlight().id()).isNotEqualTo(first.id());
  }

  @Test
  void aDeliveryNeverEndsTheHoldBeforeTheAttachWindowEvenWithAZeroReplayWindow() {
    InFlight first = deliveredCall("send_mail", ARGS);

    Decision retry = admit(gate, call("send_mail", ARGS));

    assertThat(retry).isInstanceOf(Decision.Replay.class);
    assertThat(((Decision.Replay) retry).execution().id()).isEqualTo(first.id());
  }

  @Test
  void aDeliveryLateInTheAttachWindowStillHoldsForTheReplayWindow() {
    Decision.Dispatch d = (Decision.Dispatch) admit(gate, call("create_ticket", ARGS));
    clock.advance(ToolContract.DEFAULT_ATTACH_WINDOW.minusSeconds(1));
    d.inFlight().completed(200, bytes("{\"n\":1}"), false).toCompletableFuture().join();
    Execution delivered = d.inFlight().delivered().toCompletableFuture().join();

    assertThat(delivered.holdUntil()).isEqualTo(clock.instant().plusSeconds(3));
    clock.advance(Duration.ofSeconds(2));
    assertThat(admit(gate, call("create_ticket", ARGS))).isInstanceOf(Decision.Replay.class);
  }

  @Test
  void anUnknownOutcomeHoldsUntilRetentionEvenAfterTheAttachWindow() {
    Decision.Dispatch d = (Decision.Dispatch) admit(gate, call("create_ticket", ARGS));
    d.inFlight().unknown("connection lost").toCompletableFuture().join();
    clock.advance(ToolContract.DEFAULT_ATTACH_WINDOW.multipliedBy(6));

    Decision retry = admit(gate, call("create_ticket", ARGS));

    assertThat(retry).isInstanceOf(Decision.Respond.class);
    assertThat(((Decision.Respond) retry).code())
        .isEqualTo(dev.tally.core.mcp.TallyCode.OUTCOME_UNKNOWN);
    clock.advance(ToolContract.DEFAULT_RESULT_RETENTION);
    assertThat(admit(gate, call("create_ticket", ARGS))).isInstanceOf(Decision.Dispatch.class);
  }

  @Test
  void aResultNotDeliveredIsReplayedNotRunAgainAfterTheAttachWindow() {
    Decision.Dispatch d = (Decision.Dispatch) admit(gate, call("create_ticket", ARGS));
    d.inFlight().completed(200, bytes("{\"n\":1}"), false).toCompletableFuture().join();
    d.inFlight().notDelivered().toCompletableFuture().join();
    clock.advance(Duration.ofHours(2));

    Decision retry = admit(gate, call("create_ticket", ARGS));

    assertThat(retry).isInstanceOf(Decision.Replay.class);
    assertThat(((Decision.Replay) retry).execution().id()).isEqualTo(d.inFlight().id());
  }

  @Test
  void aKeyedExecutionKeepsItsKeyAfterDeliveryWhateverTheWindow() {
    String keyed = "{\"env\":\"prod\",\"idempotencyKey\":\"release-42\"}";
    InFlight first = deliveredCall("deploy", keyed);
    clock.advance(Duration.ofHours(1));

    Decision retry = admit(gate, call("deploy", keyed));

    assertThat(retry).isInstanceOf(Decision.Replay.class);
    assertThat(((Decision.Replay) retry).execution().id()).isEqualTo(first.id());
  }

  @Test
  void aDifferentCallInsideTheWindowIsNotAffected() {
    deliveredCall("create_ticket", ARGS);

    Decision other = admit(gate, call("create_ticket", "{\"title\":\"b\"}"));

    assertThat(other).isInstanceOf(Decision.Dispatch.class);
  }

  @Test
  void aReplayThatReachesItsClientRecordsTheDeliveryAndHoldsToTheEndOfTheAttachWindow() {
    Decision.Dispatch d = (Decision.Dispatch) admit(gate, call("create_ticket", ARGS));
    d.inFlight().completed(200, bytes("{\"n\":1}"), false).toCompletableFuture().join();
    d.inFlight().notDelivered().toCompletableFuture().join();
    clock.advance(Duration.ofMinutes(1));
    Decision.Replay replay = (Decision.Replay) admit(gate, call("create_ticket", ARGS));
    assertThat(replay.execution().state()).isEqualTo(ExecutionState.COMPLETED_NOT_DELIVERED);

    Execution after = gate.replayDelivered(replay.execution()).toCompletableFuture().join();

    assertThat(after.state()).isEqualTo(ExecutionState.DELIVERED);
    Instant accepted = after.at(ExecutionState.ACCEPTED);
    assertThat(after.holdUntil()).isEqualTo(accepted.plus(ToolContract.DEFAULT_ATTACH_WINDOW));
    assertThat(stored(d.inFlight().id().value()).state()).isEqualTo(ExecutionState.DELIVERED);
    clock.advance(ToolContract.DEFAULT_ATTACH_WINDOW);
    assertThat(admit(gate, call("create_ticket", ARGS))).isInstanceOf(Decision.Dispatch.class);
  }

  @Test
  void aReplayDeliveredWhileTheFirstDeliveryIsStillBeingRecordedIsNotLost() {
    Decision.Dispatch d = (Decision.Dispatch) admit(gate, call("create_ticket", ARGS));
    d.inFlight().completed(200, bytes("{\"n\":1}"), false).toCompletableFuture().join();
    // A retry that attached to the running call is answered at completion: the record it saw is
    // completed, its owner has not yet learnt that the first client's write failed.
    Decision.Replay replay = (Decision.Replay) admit(gate, call("create_ticket", ARGS));
    assertThat(replay.execution().state()).isEqualTo(ExecutionState.COMPLETED);

    var recorded = gate.replayDelivered(replay.execution()).toCompletableFuture();
    assertThat(recorded).isNotDone();
    d.inFlight().notDelivered().toCompletableFuture().join();

    assertThat(recorded.join().state()).isEqualTo(ExecutionState.DELIVERED);
    assertThat(stored(d.inFlight().id().value()).state()).isEqualTo(ExecutionState.DELIVERED);
  }

  @Test
  void aReplayOfAnExecutionInAnyOtherStateChangesNothing() {
    InFlight first = deliveredCall("create_ticket", ARGS);
    Decision.Replay replay = (Decision.Replay) admit(gate, call("create_ticket", ARGS));
    long version = replay.execution().version();

    Execution after = gate.replayDelivered(replay.execution()).toCompletableFuture().join();

    assertThat(after.version()).isEqualTo(version);
    assertThat(stored(first.id().value()).version()).isEqualTo(version);
  }

  @Test
  void aLostRaceWhileRecordingAReplayedDeliveryIsHarmless() {
    Decision.Dispatch d = (Decision.Dispatch) admit(gate, call("create_ticket", ARGS));
    d.inFlight().completed(200, bytes("{\"n\":1}"), false).toCompletableFuture().join();
    d.inFlight().notDelivered().toCompletableFuture().join();
    Decision.Replay a = (Decision.Replay) admit(gate, call("create_ticket", ARGS));
    Decision.Replay b = (Decision.Replay) admit(gate, call("create_ticket", ARGS));

    Execution first = gate.replayDelivered(a.execution()).toCompletableFuture().join();
    Execution second = gate.replayDelivered(b.execution()).toCompletableFuture().join();

    assertThat(first.state()).isEqualTo(ExecutionState.DELIVERED);
    assertThat(second.state()).isEqualTo(ExecutionState.COMPLETED_NOT_DELIVERED);
    assertThat(stored(d.inFlight().id().value()).state()).isEqualTo(ExecutionState.DELIVERED);
  }

  private InFlight deliveredCall(String tool, String args) {
    Decision.Dispatch d = (Decision.Dispatch) admit(gate, call(tool, args));
    d.inFlight().completed(200, bytes("{\"n\":1}"), false).toCompletableFuture().join();
    d.inFlight().delivered().toCompletableFuture().join();
    return d.inFlight();
  }

  private Execution stored(String id) {
    Optional<Execution> e = store.find(ExecutionId.parse(id)).toCompletableFuture().join();
    return e.orElseThrow();
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
