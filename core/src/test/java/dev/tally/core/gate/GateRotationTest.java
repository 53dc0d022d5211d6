package dev.tally.core.gate;

import static dev.tally.core.gate.GateTest.admit;
import static dev.tally.core.gate.GateTest.bytes;
import static dev.tally.core.gate.GateTest.call;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.core.actor.ActorResolvers;
import dev.tally.core.contract.ContractRegistry;
import dev.tally.core.contract.FingerprintRules;
import dev.tally.core.contract.ToolClass;
import dev.tally.core.contract.ToolContract;
import dev.tally.core.fingerprint.HmacKey;
import dev.tally.core.fingerprint.KeyRing;
import dev.tally.core.mcp.TallyCode;
import dev.tally.core.store.ExecutionStore;
import dev.tally.core.testing.MutableClock;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A key rotation never turns a retry into a second execution (issue 22 case 3): with the default
 * {@code token_hash} actors the actor, the secret references and the fingerprint all change with
 * the active key, so the gate identifies each call under every older key of the ring as well. Two
 * gates on one store stand for two replicas during a rolling restart, each on its own ring.
 */
class GateRotationTest {
  static final HmacKey K1 = HmacKey.of("k1", bytes(32, 1));
  static final HmacKey K2 = HmacKey.of("k2", bytes(32, 2));

  /** Before the rotation: only k1. */
  static final KeyRing BEFORE = KeyRing.of(K1);

  /** First step of a rolling rotation: k2 known, k1 still signs. */
  static final KeyRing ADDED = KeyRing.of(K1, List.of(K2));

  /** Second step: k2 signs, k1 still matches. */
  static final KeyRing PROMOTED = KeyRing.of(K2, List.of(K1));

  static final Map<String, String> ALICE = Map.of("Authorization", "Bearer alice-token-1234");
  static final Map<String, String> BOB = Map.of("Authorization", "Bearer bob-token-5678");

  MutableClock clock;
  ExecutionStore store;
  Map<String, ToolContract> contracts;

  @BeforeEach
  void setUp() {
    clock = GateFixtures.clock();
    store = GateFixtures.memoryStore(clock);
    ToolContract pay =
        ToolContract.of("pay", ToolClass.IRREVERSIBLE, ToolContract.Source.CONFIGURATION);
    contracts =
        Map.of(
            "create_ticket",
            ToolContract.of(
                "create_ticket", ToolClass.IRREVERSIBLE, ToolContract.Source.CONFIGURATION),
            "pay",
            new ToolContract(
                pay.tool(),
                pay.toolClass(),
                pay.source(),
                new FingerprintRules(List.of(), List.of(), Map.of(), List.of("/card")),
                pay.attachWindow(),
                pay.attachWait(),
                pay.resultRetention(),
                pay.unknownOutcome(),
                pay.statusTool(),
                pay.confirmationRequired(),
                pay.onDisconnect()));
  }

  @AfterEach
  void tearDown() {
    store.close();
  }

  Gate gate(String owner, KeyRing keys) {
    return Gate.builder(store, keys)
        .options(GateOptions.defaults(owner))
        .contracts(ContractRegistry.of(contracts, ToolContract.defaultFor("default")))
        .actors(ActorResolvers.tokenHash("Authorization", keys))
        .clock(clock)
        .build();
  }

  /** A first call under {@code keys} whose answer was lost: completed, never delivered. */
  void firstCallAnswerLost(KeyRing keys, String tool, String args, Map<String, String> headers) {
    try (Gate g = gate("first", keys)) {
      Decision.Dispatch d = (Decision.Dispatch) admit(g, call(tool, args, headers));
      d.inFlight()
          .completed(200, "{\"content\":[]}".getBytes(StandardCharsets.UTF_8), false)
          .toCompletableFuture()
          .join();
      d.inFlight().notDelivered().toCompletableFuture().join();
    }
  }

  @Test
  void aRetryByFingerprintAfterTheRotationIsReplayed() {
    firstCallAnswerLost(BEFORE, "create_ticket", "{\"title\":\"a\"}", ALICE);
    try (Gate after = gate("after", PROMOTED)) {
      assertThat(admit(after, call("create_ticket", "{\"title\":\"a\"}", ALICE)))
          .isInstanceOf(Decision.Replay.class);
    }
  }

  @Test
  void aRetryWithAnIdempotencyKeyAfterTheRotationIsReplayed() {
    Map<String, String> keyed =
        Map.of("Authorization", "Bearer alice-token-1234", "Idempotency-Key", "order-7");
    firstCallAnswerLost(BEFORE, "create_ticket", "{\"title\":\"a\"}", keyed);
    try (Gate after = gate("after", PROMOTED)) {
      assertThat(admit(after, call("create_ticket", "{\"title\":\"a\"}", keyed)))
          .isInstanceOf(Decision.Replay.class);
      // The same key with other arguments is still the reuse it was before the rotation.
      assertThat(admit(after, call("create_ticket", "{\"title\":\"b\"}", keyed)))
          .isInstanceOfSatisfying(
              Decision.Respond.class,
              r -> assertThat(r.code()).isEqualTo(TallyCode.IDEMPOTENCY_KEY_REUSED));
    }
  }

  @Test
  void aSecretArgumentIsMatchedUnderTheOlderKey() {
    firstCallAnswerLost(BEFORE, "pay", "{\"amount\":5,\"card\":\"4111-1111\"}", ALICE);
    try (Gate after = gate("after", PROMOTED)) {
      assertThat(admit(after, call("pay", "{\"amount\":5,\"card\":\"4111-1111\"}", ALICE)))
          .isInstanceOf(Decision.Replay.class);
      // Another card is another payment.
      assertThat(admit(after, call("pay", "{\"amount\":5,\"card\":\"4111-2222\"}", ALICE)))
          .isInstanceOf(Decision.Dispatch.class);
    }
  }

  @Test
  void anotherCallerIsStillAnotherActorAcrossTheRotation() {
    firstCallAnswerLost(BEFORE, "create_ticket", "{\"title\":\"a\"}", ALICE);
    try (Gate after = gate("after", PROMOTED)) {
      assertThat(admit(after, call("create_ticket", "{\"title\":\"a\"}", BOB)))
          .isInstanceOf(Decision.Dispatch.class);
    }
  }

  /**
   * The documented rolling rotation: step one adds k2 to every replica's ring, step two promotes
   * it. Between the steps a replica on each ring is running; a call on either is matched on the
   * other, both ways.
   */
  @Test
  void twoReplicasOnTheTwoRingsOfARollingRotationMatchEachOther() {
    firstCallAnswerLost(ADDED, "create_ticket", "{\"title\":\"from-added\"}", ALICE);
    firstCallAnswerLost(PROMOTED, "create_ticket", "{\"title\":\"from-promoted\"}", ALICE);
    try (Gate added = gate("added", ADDED);
        Gate promoted = gate("promoted", PROMOTED)) {
      assertThat(admit(promoted, call("create_ticket", "{\"title\":\"from-added\"}", ALICE)))
          .isInstanceOf(Decision.Replay.class);
      assertThat(admit(added, call("create_ticket", "{\"title\":\"from-promoted\"}", ALICE)))
          .isInstanceOf(Decision.Replay.class);
    }
  }

  @Test
  void aRingWithoutTheOlderKeyNoLongerMatches() {
    // The limit the rotation procedure exists for: drop k1 only after the retention has passed.
    firstCallAnswerLost(BEFORE, "create_ticket", "{\"title\":\"a\"}", ALICE);
    try (Gate after = gate("after", KeyRing.of(K2))) {
      assertThat(admit(after, call("create_ticket", "{\"title\":\"a\"}", ALICE)))
          .isInstanceOf(Decision.Dispatch.class);
    }
  }
}
