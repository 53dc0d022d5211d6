package dev.tally.core.gate;

import static dev.tally.core.gate.GateTest.KEYS;
import static dev.tally.core.gate.GateTest.admit;
import static dev.tally.core.gate.GateTest.call;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.mcp.TallyError;
import dev.tally.core.store.ExecutionQuery;
import dev.tally.core.testing.FaultyStore;
import dev.tally.core.testing.MutableClock;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A claim that landed in the store although its caller was told it failed (issue 22, case 10):
 * nothing was sent for it, so it is settled {@code failed} (the call never ran) instead of lapsing
 * into {@code outcome_unknown}, and an identical retry runs the call.
 */
class GateUnsentClaimTest {
  private static final String ARGS = "{\"title\":\"unsent\"}";

  MutableClock clock;
  FaultyStore store;
  Gate gate;

  @BeforeEach
  void setUp() {
    clock = GateFixtures.clock();
    store = new FaultyStore(GateFixtures.memoryStore(clock));
    gate =
        Gate.builder(store, KEYS)
            .options(GateOptions.defaults("owner-a"))
            .actors(h -> "actor-1")
            .clock(clock)
            .build();
  }

  @AfterEach
  void tearDown() {
    gate.close();
    store.close();
  }

  @Test
  void aClaimWhoseAnswerWasLostIsSettledFailedAndTheRetryRuns() {
    store.loseClaimAnswers(1);

    Decision first = admit(gate, call("create_ticket", ARGS));

    assertThat(first).isInstanceOf(Decision.Refuse.class);
    assertThat(((Decision.Refuse) first).error().code())
        .isEqualTo(TallyError.Code.STORE_UNAVAILABLE);
    Execution orphan = only();
    assertThat(orphan.state()).isEqualTo(ExecutionState.FAILED);
    assertThat(orphan.lease()).isNull();

    Decision retry = admit(gate, call("create_ticket", ARGS));
    assertThat(retry).isInstanceOf(Decision.Dispatch.class);
    assertThat(((Decision.Dispatch) retry).inFlight().id()).isNotEqualTo(orphan.id());
  }

  @Test
  void aStoreStillFailingSettlesTheClaimOnALaterRoundNotAsUnknown() {
    store.loseClaimAnswers(1);
    store.failFinds(1);

    admit(gate, call("create_ticket", ARGS));
    assertThat(only().state())
        .as("the store did not answer yet")
        .isEqualTo(ExecutionState.DISPATCHED);

    // Past the claim's lease: the reaper would call it unknown; the unsent claim is settled first.
    clock.advance(GateOptions.defaults("x").lease().multipliedBy(2));
    gate.tickLeases().toCompletableFuture().join();

    assertThat(only().state()).isEqualTo(ExecutionState.FAILED);
    assertThat(admit(gate, call("create_ticket", ARGS))).isInstanceOf(Decision.Dispatch.class);
  }

  @Test
  void aClaimThatDidNotLandLeavesNothingBehind() {
    store.down(true);
    assertThat(admit(gate, call("create_ticket", ARGS))).isInstanceOf(Decision.Refuse.class);
    store.down(false);
    clock.advance(GateOptions.defaults("x").lease().multipliedBy(2));
    gate.tickLeases().toCompletableFuture().join();

    assertThat(all()).isEmpty();
    assertThat(admit(gate, call("create_ticket", ARGS))).isInstanceOf(Decision.Dispatch.class);
  }

  private List<Execution> all() {
    return store
        .delegate()
        .list(new ExecutionQuery(null, null, null, null, 100))
        .toCompletableFuture()
        .join()
        .items();
  }

  private Execution only() {
    List<Execution> all = all();
    assertThat(all).hasSize(1);
    return all.get(0);
  }
}
