package dev.tally.core.gate;

import static dev.tally.core.gate.GateTest.admit;
import static dev.tally.core.gate.GateTest.call;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.IntNode;
import dev.tally.core.actor.ActorConfig;
import dev.tally.core.actor.ActorResolvers;
import dev.tally.core.actor.ActorSource;
import dev.tally.core.contract.ContractRegistry;
import dev.tally.core.contract.ToolClass;
import dev.tally.core.contract.ToolContract;
import dev.tally.core.mcp.TallyCode;
import dev.tally.core.mcp.TallyError;
import dev.tally.core.mcp.ToolResults;
import dev.tally.core.store.ExecutionStore;
import dev.tally.core.testing.MutableClock;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * No attach or replay across callers who did not prove the same identity (issue 22 case 5): a
 * caller identified by another credential than {@code Authorization} is its own actor, a caller
 * with none is never shown a stored result, and a credential that proves nothing is refused.
 */
class GateIdentityTest {
  static final ObjectMapper JSON = new ObjectMapper();
  static final String SECRET_RESULT = "ticket T-1 for alice, internal note 7f3a";

  MutableClock clock;
  ExecutionStore store;
  Gate gate;

  @BeforeEach
  void setUp() {
    clock = GateFixtures.clock();
    store = GateFixtures.memoryStore(clock);
    gate =
        Gate.builder(store, GateTest.KEYS)
            .options(GateOptions.defaults("identity"))
            .contracts(
                ContractRegistry.of(
                    Map.of(
                        "create_ticket",
                        ToolContract.of(
                            "create_ticket",
                            ToolClass.IRREVERSIBLE,
                            ToolContract.Source.CONFIGURATION)),
                    ToolContract.defaultFor("default")))
            .actors(
                ActorResolvers.from(
                    ActorConfig.of(
                        List.of(
                            ActorSource.tokenHash("Authorization"),
                            ActorSource.tokenHash("X-Api-Key"),
                            ActorSource.header("X-Forwarded-User")),
                        null),
                    GateTest.KEYS))
            .clock(clock)
            .build();
  }

  @AfterEach
  void tearDown() {
    gate.close();
    store.close();
  }

  /** A first call whose answer was lost: completed, not delivered. */
  Decision.Dispatch completedNotDelivered(Map<String, String> headers) {
    Decision d = admit(gate, call("create_ticket", "{\"title\":\"a\"}", headers));
    assertThat(d).isInstanceOf(Decision.Dispatch.class);
    Decision.Dispatch first = (Decision.Dispatch) d;
    String body = "{\"content\":[{\"type\":\"text\",\"text\":\"" + SECRET_RESULT + "\"}]}";
    first
        .inFlight()
        .completed(200, body.getBytes(StandardCharsets.UTF_8), false)
        .toCompletableFuture()
        .join();
    first.inFlight().notDelivered().toCompletableFuture().join();
    return first;
  }

  @Test
  void aCallerWithAnotherApiKeyRunsItsOwnActionNotTheFirstCallersResult() {
    completedNotDelivered(Map.of("X-Api-Key", "key-of-alice-123"));
    assertThat(
            admit(
                gate,
                call("create_ticket", "{\"title\":\"a\"}", Map.of("X-Api-Key", "key-of-bob-4567"))))
        .isInstanceOf(Decision.Dispatch.class);
    // Alice's own retry is replayed.
    assertThat(
            admit(
                gate,
                call(
                    "create_ticket", "{\"title\":\"a\"}", Map.of("X-Api-Key", "key-of-alice-123"))))
        .isInstanceOf(Decision.Replay.class);
  }

  @Test
  void anAnonymousRetryGetsTheStateAndIdButNeverTheStoredResult() throws Exception {
    Decision.Dispatch first = completedNotDelivered(Map.of());
    Decision retry = admit(gate, call("create_ticket", "{\"title\":\"a\"}", Map.of()));
    assertThat(retry)
        .isInstanceOfSatisfying(
            Decision.Respond.class, r -> assertThat(r.code()).isEqualTo(TallyCode.RESULT_WITHHELD));
    Decision.Respond r = (Decision.Respond) retry;
    assertThat(r.execution().id()).isEqualTo(first.inFlight().id());
    String rendered =
        new String(
            ToolResults.respond(IntNode.valueOf(3), r.code(), r.execution()),
            StandardCharsets.UTF_8);
    assertThat(rendered).doesNotContain(SECRET_RESULT);
    JsonNode tally = JSON.readTree(rendered).at("/result/structuredContent/tally");
    assertThat(tally.get("code").asText()).isEqualTo("RESULT_WITHHELD");
    assertThat(tally.get("executionId").asText()).isEqualTo(first.inFlight().id().value());
    assertThat(tally.get("state").asText()).isEqualTo("completed_not_delivered");
    assertThat(tally.has("targetStatus")).isFalse();
    assertThat(tally.has("result")).isFalse();
    assertThat(JSON.readTree(rendered).at("/result/isError").asBoolean()).isTrue();
    // The action did not run a second time either: the same execution still holds the intent.
    assertThat(admit(gate, call("create_ticket", "{\"title\":\"a\"}", Map.of())))
        .isInstanceOf(Decision.Respond.class);
  }

  @Test
  void anAnonymousCallNeverAttachesToARunningExecution() {
    Decision.Dispatch running =
        (Decision.Dispatch) admit(gate, call("create_ticket", "{\"title\":\"b\"}", Map.of()));
    assertThat(admit(gate, call("create_ticket", "{\"title\":\"b\"}", Map.of())))
        .isInstanceOfSatisfying(
            Decision.Respond.class,
            r -> {
              assertThat(r.code()).isEqualTo(TallyCode.RESULT_WITHHELD);
              assertThat(r.execution().id()).isEqualTo(running.inFlight().id());
            });
  }

  @Test
  void aTrustedHeaderSentTwiceIsRefusedWithIdentityUnproven() {
    ToolCall twice =
        new ToolCall(
            "create_ticket",
            GateTest.json("{\"title\":\"a\"}"),
            null,
            false,
            new dev.tally.core.mcp.Headers() {
              @Override
              public String get(String name) {
                return all(name).isEmpty() ? null : all(name).get(0);
              }

              @Override
              public List<String> all(String name) {
                return name.equalsIgnoreCase("X-Forwarded-User")
                    ? List.of("alice", "bob")
                    : List.of();
              }
            },
            "http://up");
    assertThat(admit(gate, twice))
        .isInstanceOfSatisfying(
            Decision.Refuse.class,
            r -> {
              assertThat(r.error().code()).isEqualTo(TallyError.Code.IDENTITY_UNPROVEN);
              assertThat(r.error().message()).doesNotContain("alice").doesNotContain("bob");
            });
  }

  @Test
  void aStreamOwnerIsRecognisedUnderEveryKeyOfTheRingAndNobodyElseIs() {
    Map<String, String> alice = Map.of("Authorization", "Bearer alice-token-1234");
    String owner;
    try (Gate before = GateRotationTestGates.tokenHash(store, GateRotationTest.BEFORE, clock)) {
      owner = before.ownerOf(call("x", "{}", alice).headers());
    }
    try (Gate after = GateRotationTestGates.tokenHash(store, GateRotationTest.PROMOTED, clock)) {
      assertThat(after.ownerOf(call("x", "{}", alice).headers())).isNotEqualTo(owner);
      assertThat(after.sameOwner(owner, call("x", "{}", alice).headers())).isTrue();
      assertThat(after.sameOwner(owner, call("x", "{}", GateRotationTest.BOB).headers())).isFalse();
      assertThat(after.sameOwner(owner, call("x", "{}", Map.of()).headers())).isFalse();
      assertThat(after.sameOwner(null, call("x", "{}", Map.of()).headers())).isTrue();
    }
  }
}
