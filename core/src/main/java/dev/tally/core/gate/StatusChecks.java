package dev.tally.core.gate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tally.core.contract.ToolContract;
import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.execution.Transition;
import dev.tally.core.mcp.Headers;
import dev.tally.core.mcp.RpcOutcome;
import dev.tally.core.store.ExecutionStore;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Settles an {@code outcome_unknown} execution of a {@code status_check} contract by asking its
 * {@code statusTool} (issue 18), before its retry is answered. The status tool is called with the
 * execution id (the id the upstream got as {@code Idempotency-Key}) under the contract's {@link
 * dev.tally.core.contract.StatusArguments#executionIdName()} (default {@code executionId}) and each
 * argument its {@code statusArguments} maps from the call's arguments, taken from the retry's own
 * arguments (identical to the original's: same fingerprint; nothing of them is stored), numbers
 * with their exact value. When an argument it maps is absent from the call there is no lookup: the
 * retry gets {@code OUTCOME_UNKNOWN} and the audit chain says {@code argument_missing}. It must
 * answer a tool result whose {@code structuredContent.status} is:
 *
 * <ul>
 *   <li>{@code "completed"} with {@code structuredContent.result} (the call's own tool result): the
 *       execution is recorded {@code completed} with it, and the retry replays it;
 *   <li>{@code "not_found"}: the call never took effect; the execution is recorded {@code failed},
 *       which releases its key, and the retry runs anew.
 * </ul>
 *
 * Anything else (no answer, an error, another status) leaves it {@code outcome_unknown}, and the
 * retry gets {@code OUTCOME_UNKNOWN}. At most {@link #MAX_ATTEMPTS} lookups are made per execution
 * by this instance (the bound is per instance: counting lookups across instances would need a
 * durable counter the store does not have); every settlement is a recorded transition (so in the
 * audit chain).
 */
public final class StatusChecks {
  /** Lookups per execution before the answer stays {@code OUTCOME_UNKNOWN}. */
  public static final int MAX_ATTEMPTS = 3;

  private static final ObjectMapper JSON = new ObjectMapper();

  /** Writes the mapped values as read: exact decimals and integers, never through a double. */
  private static final ObjectMapper EXACT = dev.tally.core.mcp.WireJson.defaults().strict();

  private final ExecutionStore store;
  private final Clock clock;
  private final StatusLookup lookup;
  private final dev.tally.core.audit.AuditSink audit;
  private final dev.tally.core.mcp.ToolParamHeaders paramHeaders;
  private final Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();

  StatusChecks(
      ExecutionStore store,
      Clock clock,
      StatusLookup lookup,
      dev.tally.core.audit.AuditSink audit,
      dev.tally.core.mcp.ToolParamHeaders paramHeaders) {
    this.store = store;
    this.clock = clock;
    this.lookup = lookup;
    this.audit = audit;
    this.paramHeaders = paramHeaders;
  }

  /**
   * Asks {@code contract}'s status tool about {@code e}; completes with the execution as settled,
   * or {@code e} unchanged when the lookup did not settle it. Never fails.
   */
  CompletionStage<Execution> settle(Execution e, ToolContract contract, ToolCall call) {
    Headers headers = call.headers();
    if (lookup == StatusLookup.NONE || contract.statusTool() == null) {
      return CompletableFuture.completedFuture(e);
    }
    AtomicInteger n = attempts.computeIfAbsent(e.id().value(), k -> new AtomicInteger());
    int attempt = n.incrementAndGet();
    if (attempt > MAX_ATTEMPTS) {
      return CompletableFuture.completedFuture(e);
    }
    Optional<ObjectNode> mapped = arguments(e, contract.statusArguments(), call.arguments());
    if (mapped.isEmpty()) {
      reportMissing(e, contract, attempt);
      return CompletableFuture.completedFuture(e);
    }
    ObjectNode args = mapped.get();
    byte[] body;
    try {
      body = EXACT.writeValueAsBytes(args);
    } catch (IOException x) {
      return CompletableFuture.completedFuture(e);
    }
    Map<String, String> modern =
        dev.tally.core.mcp.HeaderRules.mirrored(
            dev.tally.core.mcp.ProtocolVersions.MODERN,
            contract.statusTool(),
            args,
            paramHeaders.forTool(contract.statusTool()));
    return lookup
        .call(contract.statusTool(), body, headers, modern)
        .thenCompose(
            answer -> {
              report(e, contract, answer, attempt);
              return apply(e, contract, answer);
            })
        .exceptionally(err -> e);
  }

  /**
   * The status tool's arguments for {@code e}: the execution id and each mapped argument from the
   * call's {@code arguments}; empty when one of them is absent there (no lookup is made).
   */
  static Optional<ObjectNode> arguments(
      Execution e, dev.tally.core.contract.StatusArguments spec, JsonNode arguments) {
    ObjectNode args = JSON.createObjectNode();
    args.put(spec.executionIdName(), e.id().value());
    for (Map.Entry<String, String> m : spec.fromCall().entrySet()) {
      JsonNode v = arguments == null ? null : arguments.at(m.getValue());
      if (v == null || v.isMissingNode()) {
        return Optional.empty();
      }
      args.set(m.getKey(), v.deepCopy());
    }
    return Optional.of(args);
  }

  /** A lookup not made because a mapped argument was absent, in the audit chain; never throws. */
  private void reportMissing(Execution e, ToolContract contract, int n) {
    try {
      audit.statusLookup(e, contract.statusTool(), ARGUMENT_MISSING, n, clock.instant());
    } catch (RuntimeException x) {
      // As for report: a gap shows at verify time.
    }
  }

  /** The audit's answer when no lookup was made: an argument the contract maps was absent. */
  static final String ARGUMENT_MISSING = "argument_missing";

  /** Puts the lookup and what it answered in the audit chain; never throws. */
  private void report(Execution e, ToolContract contract, Optional<RpcOutcome> answer, int n) {
    try {
      audit.statusLookup(e, contract.statusTool(), answerOf(answer), n, clock.instant());
    } catch (RuntimeException x) {
      // The lookup stands; an audit journal that cannot write shows as a gap at verify time.
    }
  }

  /** What a status tool's answer said, in the audit's words. */
  static String answerOf(Optional<RpcOutcome> answer) {
    if (answer.isEmpty()) {
      return "unanswered";
    }
    if (!(answer.get() instanceof RpcOutcome.Result r) || r.isError()) {
      return "error";
    }
    try {
      String status = JSON.readTree(r.result()).path("structuredContent").path("status").asText("");
      return status.equals("completed") || status.equals("not_found") ? status : "unrecognized";
    } catch (IOException x) {
      return "unrecognized";
    }
  }

  private CompletionStage<Execution> apply(
      Execution e, ToolContract contract, Optional<RpcOutcome> answer) {
    if (answer.isEmpty() || !(answer.get() instanceof RpcOutcome.Result r) || r.isError()) {
      return CompletableFuture.completedFuture(e);
    }
    JsonNode sc;
    try {
      sc = JSON.readTree(r.result()).path("structuredContent");
    } catch (IOException x) {
      return CompletableFuture.completedFuture(e);
    }
    Instant now = clock.instant();
    String status = sc.path("status").asText("");
    if (status.equals("not_found")) {
      attempts.remove(e.id().value());
      return store
          .transition(Transition.to(e, ExecutionState.FAILED, now).clearingLease())
          .exceptionally(err -> e);
    }
    JsonNode result = sc.get("result");
    if (!status.equals("completed") || result == null || !result.isObject()) {
      return CompletableFuture.completedFuture(e);
    }
    byte[] bytes;
    try {
      bytes = JSON.writeValueAsBytes(result);
    } catch (IOException x) {
      return CompletableFuture.completedFuture(e);
    }
    attempts.remove(e.id().value());
    // As an operator's resolve: no client has this result yet, so it is recorded not delivered
    // and the retry's replay makes it delivered.
    return store
        .transition(
            Transition.to(e, ExecutionState.COMPLETED, now)
                .clearingLease()
                .withResult(bytes, result.path("isError").asBoolean(false))
                .withRetainUntil(now.plus(contract.resultRetention())))
        .thenCompose(
            completed ->
                store
                    .transition(
                        Transition.to(
                            completed, ExecutionState.COMPLETED_NOT_DELIVERED, clock.instant()))
                    .exceptionally(err -> completed))
        .exceptionally(err -> e);
  }
}
