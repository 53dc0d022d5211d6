package dev.tally.core.model;

import dev.tally.core.actor.ActorResolvers;
import dev.tally.core.contract.ContractRegistry;
import dev.tally.core.contract.DisconnectBehaviour;
import dev.tally.core.contract.FingerprintRules;
import dev.tally.core.contract.ToolClass;
import dev.tally.core.contract.ToolContract;
import dev.tally.core.contract.UnknownOutcomePolicy;
import dev.tally.core.fingerprint.HmacKey;
import dev.tally.core.mcp.Headers;
import dev.tally.core.mcp.McpNames;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The fixed universe of every model run: three tools (one per gated class and a read-only one),
 * three actors with distinct credentials, small pools of arguments, idempotency keys and intent
 * scopes (so that identical calls are frequent), and the windows of the contracts.
 *
 * <p>Every duration is a whole number of seconds; the generator's clock advances all end in an odd
 * millisecond, so no instant of a run falls exactly on the end of a window or lease (where the
 * stores' comparisons may legitimately differ by one tick).
 */
final class World {
  private World() {}

  static final Duration ATTACH_WINDOW = Duration.ofMinutes(10);
  static final Duration ATTACH_WAIT = Duration.ofSeconds(30);
  static final Duration REPLAY_WINDOW = Duration.ofSeconds(2);
  static final Duration RETENTION = Duration.ofHours(24);

  /** Longer than any run's real time, so heartbeats never run unasked; lapses need the clock. */
  static final Duration LEASE = Duration.ofHours(2);

  static final Duration HEARTBEAT = Duration.ofHours(1);

  /** What the model's clock moves while a call waits on a running execution it attached to. */
  static final Duration ATTACH_WAIT_PASSED = ATTACH_WAIT.plusMillis(1);

  static final int KEYED = 0;
  static final int IRREVERSIBLE = 1;
  static final int READ_ONLY = 2;
  static final List<String> TOOLS = List.of("deploy", "create_ticket", "search");
  static final List<ToolClass> CLASSES =
      List.of(ToolClass.KEYED, ToolClass.IRREVERSIBLE, ToolClass.READ_ONLY);

  static final List<String> ACTORS = List.of("alice", "bob", "carol");
  static final List<String> KEYS = List.of("key-1", "key-2", "key-3");

  /** Index 0: no explicit intent scope (the attach window scopes the intent). */
  static final List<String> SCOPES = List.of("", "run-7");

  static final int ARGUMENT_SETS = 3;

  /** Results above this are not kept by any store of the run. */
  static final int MAX_RESULT_BYTES = 4096;

  /** The upstream identity recorded in every action record. */
  static final String TARGET = "model-upstream";

  static final String ACTOR_HEADER = "X-Actor";

  /** How the gate tells actors apart; "same actor" is always "same credential". */
  enum ActorMode {
    /** {@code hdr:<value>} of a header a trusted ingress sets: independent of the HMAC keys. */
    TRUSTED_HEADER,
    /** The production default: a keyed hash of the bearer token in {@code Authorization}. */
    TOKEN_HASH;

    String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  static ToolClass classOf(int tool) {
    return CLASSES.get(tool);
  }

  static ContractRegistry contracts() {
    Map<String, ToolContract> m = new TreeMap<>();
    for (int t = 0; t < TOOLS.size(); t++) {
      ToolClass c = CLASSES.get(t);
      m.put(
          TOOLS.get(t),
          new ToolContract(
              TOOLS.get(t),
              c,
              ToolContract.Source.CONFIGURATION,
              FingerprintRules.NONE,
              ATTACH_WINDOW,
              ATTACH_WAIT,
              RETENTION,
              UnknownOutcomePolicy.defaultFor(c),
              null,
              false,
              c == ToolClass.READ_ONLY ? DisconnectBehaviour.CANCEL : DisconnectBehaviour.FINISH,
              REPLAY_WINDOW,
              true));
    }
    return ContractRegistry.of(m, ToolContract.defaultFor("default"));
  }

  /** The {@code n}th HMAC key of a run (0 is the first active one). */
  static HmacKey hmacKey(int n) {
    byte[] material = new byte[32];
    for (int i = 0; i < material.length; i++) {
      material[i] = (byte) (31 * n + i + 7);
    }
    return HmacKey.of("model-k" + n, material);
  }

  /** The actor resolver of {@code mode}; token hashes use the gate's key ring (its default). */
  static dev.tally.core.actor.ActorResolver resolver(ActorMode mode) {
    return mode == ActorMode.TRUSTED_HEADER ? ActorResolvers.trustedHeader(ACTOR_HEADER) : null;
  }

  /** The request headers of {@code actor}'s call, with its idempotency key header if any. */
  static Headers headers(ActorMode mode, int actor, String idempotencyKeyHeader) {
    Map<String, String> h = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    h.put(McpNames.HeaderNames.CONTENT_TYPE, "application/json");
    h.put(McpNames.HeaderNames.ACCEPT, "application/json, text/event-stream");
    if (mode == ActorMode.TRUSTED_HEADER) {
      h.put(ACTOR_HEADER, ACTORS.get(actor));
    } else {
      h.put("Authorization", "Bearer " + token(actor));
    }
    if (idempotencyKeyHeader != null) {
      h.put(McpNames.HeaderNames.IDEMPOTENCY_KEY, idempotencyKeyHeader);
    }
    return h::get;
  }

  /** A test credential (never printed: ops name actors by label only). */
  private static String token(int actor) {
    return "model-token-" + ACTORS.get(actor) + "-0123456789abcdef0123456789";
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
