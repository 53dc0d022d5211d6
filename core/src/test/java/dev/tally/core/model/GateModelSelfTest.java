package dev.tally.core.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.tally.core.execution.Execution;
import dev.tally.core.fingerprint.KeyRing;
import dev.tally.core.gate.Gate;
import dev.tally.core.gate.ToolCall;
import dev.tally.core.mcp.ToolCallReader;
import dev.tally.core.mcp.WireJson;
import dev.tally.core.store.Claim;
import dev.tally.core.store.ExecutionStore;
import dev.tally.core.store.ForwardingExecutionStore;
import dev.tally.core.store.MemoryExecutionStore;
import dev.tally.core.store.MemoryStoreOptions;
import dev.tally.core.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;

/**
 * The model test can fail: each invariant, the decision check and the durability check catch a gate
 * or store that breaks them, and the generator's layouts of one call are one intent.
 */
class GateModelSelfTest {
  private static final Op.Call FIRST =
      new Op.Call(
          "new",
          0,
          World.IRREVERSIBLE,
          1,
          -1,
          false,
          0,
          0,
          Op.Fault.NONE,
          Op.Reaction.RESULT,
          Op.End.LOST_AFTER_WRITE,
          null,
          false);

  private static ExecutionStore memory() {
    return MemoryExecutionStore.create(
        MemoryStoreOptions.defaults().withMaxResultBytes(World.MAX_RESULT_BYTES));
  }

  private static Violation violation(ModelStores stores, List<Op> ops) throws Exception {
    try (ModelRun run = new ModelRun(stores, World.ActorMode.TRUSTED_HEADER)) {
      return caught(() -> run.run(ops));
    }
  }

  @Test
  void aScenarioOfRetriesPassesOnTheRealGate() throws Exception {
    List<Op> ops =
        List.of(
            FIRST,
            new Op.Advance(Duration.ofSeconds(1).plusMillis(1)),
            FIRST.withReaction(Op.Reaction.RESULT),
            new Op.Crash(),
            FIRST);
    assertThat(violation(MemoryGateModelTest.memoryStores(), ops)).isNull();
  }

  @Test
  void aStoreThatLetsEveryClaimWinIsCaught() throws Exception {
    ModelStores forgetful = clock -> new EveryClaimWins(memory());

    Violation v = violation(forgetful, List.of(FIRST, FIRST));

    assertThat(v).isNotNull();
    assertThat(v.invariant()).isEqualTo("decision");
    assertThat(v.getMessage()).contains("expected Replay");
  }

  @Test
  void aStoreThatForgetsOnRestartIsCaught() throws Exception {
    ModelStores amnesiac =
        new ModelStores() {
          @Override
          public ExecutionStore open(MutableClock clock) {
            return memory();
          }

          @Override
          public ExecutionStore reopen(ExecutionStore store, MutableClock clock) {
            store.close();
            return memory();
          }
        };

    Violation v = violation(amnesiac, List.of(FIRST, new Op.Crash()));

    assertThat(v).isNotNull();
    assertThat(v.invariant()).isEqualTo("durable");
    assertThat(v.getMessage()).contains("missing in the store");
  }

  @Test
  void twoEffectsOfOneIntentInsideItsWindowAreCaught() {
    ReferenceModel model = new ReferenceModel();
    SimulatedUpstream upstream = new SimulatedUpstream();
    Instant t0 = MutableClock.DEFAULT_START;
    ReferenceModel.Exec a = model.created(FIRST, "act_A", t0);
    model.completed(a, new byte[] {'{', '}'}, 0, false);
    model.written(a, true, t0);
    upstream.receive(World.utf8("{}"), "act_A", FIRST.tool(), 0, Op.Reaction.RESULT, t0);
    Instant later = t0.plus(World.ATTACH_WINDOW).minusSeconds(1);
    model.created(FIRST, "act_B", later);
    upstream.receive(World.utf8("{}"), "act_B", FIRST.tool(), 0, Op.Reaction.RESULT, later);

    Violation v = caught(() -> Invariants.atMostOneEffectPerIntent(upstream, model));

    assertThat(v).isNotNull();
    assertThat(v.getMessage()).contains("ran twice");
  }

  @Test
  void anEffectAfterTheWindowOfADeliveredCallIsANewIntent() {
    ReferenceModel model = new ReferenceModel();
    SimulatedUpstream upstream = new SimulatedUpstream();
    Instant t0 = MutableClock.DEFAULT_START;
    ReferenceModel.Exec a = model.created(FIRST, "act_A", t0);
    model.completed(a, new byte[] {'{', '}'}, 0, false);
    model.written(a, true, t0);
    upstream.receive(World.utf8("{}"), "act_A", FIRST.tool(), 0, Op.Reaction.RESULT, t0);
    Instant later = t0.plus(World.ATTACH_WINDOW).plusMillis(1);
    model.created(FIRST, "act_B", later);
    upstream.receive(World.utf8("{}"), "act_B", FIRST.tool(), 0, Op.Reaction.RESULT, later);

    assertThatCode(() -> Invariants.atMostOneEffectPerIntent(upstream, model))
        .doesNotThrowAnyException();
  }

  @Test
  void anIrreversibleExecutionRunTwiceIsCaught() {
    ReferenceModel model = new ReferenceModel();
    SimulatedUpstream upstream = new SimulatedUpstream();
    Instant t0 = MutableClock.DEFAULT_START;
    model.created(FIRST, "act_A", t0);
    upstream.receive(World.utf8("{}"), "act_A", FIRST.tool(), 0, Op.Reaction.SILENT_END, t0);
    upstream.receive(World.utf8("{}"), "act_A", FIRST.tool(), 0, Op.Reaction.RESULT, t0);

    Violation v = caught(() -> Invariants.atMostOneEffectPerIntent(upstream, model));

    assertThat(v).isNotNull();
    assertThat(v.getMessage()).contains("2 times");
  }

  @Test
  void aResultShownToAnotherActorIsCaught() {
    ReferenceModel model = new ReferenceModel();
    model.created(FIRST, "act_A", MutableClock.DEFAULT_START); // alice's
    byte[] replayToBob =
        World.utf8(
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[],\"_meta\":"
                + "{\"dev.tally/replay\":{\"executionId\":\"act_A\"}}}}");
    byte[] resultToBob =
        World.utf8(
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\","
                + "\"text\":\"ran #0 of create_ticket for alice as act_A\"}]}}");

    assertThat(caught(() -> Invariants.noForeignResult(1, replayToBob, model)))
        .hasMessageContaining("an execution of alice");
    assertThat(caught(() -> Invariants.noForeignResult(1, resultToBob, model)))
        .hasMessageContaining("made for alice");
    assertThatCode(() -> Invariants.noForeignResult(0, resultToBob, model))
        .doesNotThrowAnyException();
  }

  @Test
  void everyLayoutReachesTheUpstreamWithItsOwnBytesAndOnlyTheExecutionIdAndTraceAdded() {
    ToolCallReader reader = ToolCallReader.create(WireJson.defaults());
    for (int shape = 0; shape < ClientBodies.SHAPES; shape++) {
      for (int scope = 0; scope < World.SCOPES.size(); scope++) {
        Op.Call c = withShape(FIRST, shape, scope, 1);
        byte[] body = ClientBodies.render(c, "7");
        var read = (ToolCallReader.Ok) reader.read(body, 0, body.length);
        byte[] upstream =
            read.envelope()
                .forUpstream(
                    "act_01MODELTEST",
                    "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
                    null);

        assertThatCode(() -> Invariants.sameArguments(body, upstream, "act_01MODELTEST"))
            .as("shape %d scope %d", shape, scope)
            .doesNotThrowAnyException();
      }
    }
  }

  @Test
  void argumentBytesChangedOnTheWayAreCaught() {
    byte[] body = ClientBodies.render(withShape(FIRST, 3, 0, 1), "7");
    String text = new String(body, java.nio.charset.StandardCharsets.UTF_8);
    byte[] rounded = World.utf8(text.replace("12.50", "12.5"));
    byte[] unmarked = body.clone();

    assertThat(caught(() -> Invariants.sameArguments(body, rounded, "act_X")))
        .hasMessageContaining("other bytes");
    assertThat(caught(() -> Invariants.sameArguments(body, unmarked, "act_X")))
        .hasMessageContaining("params._meta");
  }

  @Test
  void everyLayoutOfOneArgumentSetIsOneIntent() {
    MutableClock clock = MutableClock.create();
    try (ExecutionStore store = memory();
        Gate gate =
            Gate.builder(store, KeyRing.of(World.hmacKey(0)))
                .contracts(World.contracts())
                .actors(World.resolver(World.ActorMode.TRUSTED_HEADER))
                .clock(clock)
                .build()) {
      ToolCallReader reader = ToolCallReader.create(WireJson.defaults());
      for (int args = 0; args < World.ARGUMENT_SETS; args++) {
        Set<String> fingerprints = new HashSet<>();
        for (int shape = 0; shape < ClientBodies.SHAPES; shape++) {
          Op.Call c = withShape(FIRST, shape, 0, args);
          byte[] body = ClientBodies.render(c, "1");
          var env = ((ToolCallReader.Ok) reader.read(body, 0, body.length)).envelope();
          ToolCall call =
              new ToolCall(
                  env.tool(),
                  env.arguments(),
                  env.meta(),
                  false,
                  World.headers(World.ActorMode.TRUSTED_HEADER, 0, null),
                  World.TARGET);
          fingerprints.add(gate.describe(call, e -> {}).orElseThrow().fingerprint());
        }
        assertThat(fingerprints).as("argument set %d", args).hasSize(1);
      }
    }
  }

  /** The violation {@code check} throws, or null. */
  private static Violation caught(Check check) {
    try {
      check.run();
      return null;
    } catch (Violation v) {
      return v;
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  @FunctionalInterface
  private interface Check {
    void run() throws Exception;
  }

  private static Op.Call withShape(Op.Call c, int shape, int scope, int args) {
    return new Op.Call(
        c.note(),
        c.actor(),
        c.tool(),
        args,
        c.key(),
        c.keyInHeader(),
        scope,
        shape,
        c.fault(),
        c.reaction(),
        c.end(),
        null,
        false);
  }

  /** A broken store: every claim gets a match key of its own, so none ever finds a holder. */
  private static final class EveryClaimWins extends ForwardingExecutionStore {
    private int n;

    EveryClaimWins(ExecutionStore next) {
      super(next);
    }

    @Override
    public CompletionStage<Claim> claim(Execution c, Instant now) {
      Execution unique =
          new Execution(
              c.id(),
              c.version(),
              c.matchKey() + "#" + (n++),
              c.matchKind(),
              c.actor(),
              c.tool(),
              c.toolClass(),
              c.fingerprint(),
              c.intentScope(),
              c.state(),
              c.timeline(),
              c.holdUntil(),
              c.retainUntil(),
              c.lease(),
              c.targetStatus(),
              c.error(),
              c.result(),
              c.awaitingInput(),
              c.summary());
      return super.claim(unique, now);
    }
  }
}
