package dev.tally.core.execution;

import dev.tally.core.contract.ToolClass;
import java.time.Instant;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;

/**
 * The durable record of one execution: who asked for what, under which identity, and where it
 * stopped. Immutable; a transition yields a new instance with {@link #version()} + 1.
 *
 * @param id the execution id, sent upstream as {@code Idempotency-Key}
 * @param version compare-and-set version, starts at 1
 * @param matchKey the key a retry is matched on (see {@link MatchKind})
 * @param matchKind whether {@code matchKey} comes from an idempotency key or the fingerprint
 * @param actor the resolved actor (never a raw token)
 * @param tool the MCP tool name
 * @param toolClass the contract class the execution was admitted under
 * @param fingerprint the rendered fingerprint {@code hmac-sha256:<keyId>:<hex>}
 * @param intentScope the explicit run id, or {@link #WINDOW_SCOPE}
 * @param state the current state
 * @param timeline the last time each state was entered
 * @param holdUntil until when the record holds its match key (attach window or retention)
 * @param retainUntil when the record may be purged
 * @param lease the owner currently driving the execution, or {@code null}
 * @param targetStatus the upstream HTTP status, or {@code null}
 * @param error the upstream JSON-RPC error, or {@code null}
 * @param result a reference to the stored result, or {@code null}
 * @param awaitingInput the last upstream answer asked for input (MRTR); a follow-up continues
 * @param summary a redacted summary of the arguments (shapes, never values)
 */
public record Execution(
    ExecutionId id,
    long version,
    String matchKey,
    MatchKind matchKind,
    String actor,
    String tool,
    ToolClass toolClass,
    String fingerprint,
    String intentScope,
    ExecutionState state,
    Map<ExecutionState, Instant> timeline,
    Instant holdUntil,
    Instant retainUntil,
    Lease lease,
    Integer targetStatus,
    RpcError error,
    ResultRef result,
    boolean awaitingInput,
    String summary) {

  /** The intent scope used when the client sent no explicit run id. */
  public static final String WINDOW_SCOPE = "attach_window";

  private static final ExecutionState[] STATES = ExecutionState.values();

  public Execution {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(matchKey, "matchKey");
    Objects.requireNonNull(matchKind, "matchKind");
    Objects.requireNonNull(actor, "actor");
    Objects.requireNonNull(tool, "tool");
    Objects.requireNonNull(toolClass, "toolClass");
    Objects.requireNonNull(fingerprint, "fingerprint");
    Objects.requireNonNull(intentScope, "intentScope");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(holdUntil, "holdUntil");
    Objects.requireNonNull(retainUntil, "retainUntil");
    timeline = freeze(timeline);
    summary = summary == null ? "" : summary;
  }

  private static Map<ExecutionState, Instant> freeze(Map<ExecutionState, Instant> timeline) {
    return Collections.unmodifiableMap(
        timeline == null ? new EnumMap<>(ExecutionState.class) : copyOf(timeline));
  }

  /**
   * A mutable copy, made by looking up each state: iterating would make the map cache entry-set
   * views, two objects that every retained record would then carry.
   */
  private static EnumMap<ExecutionState, Instant> copyOf(Map<ExecutionState, Instant> timeline) {
    EnumMap<ExecutionState, Instant> copy = new EnumMap<>(ExecutionState.class);
    for (ExecutionState s : STATES) {
      Instant at = timeline.get(s);
      if (at != null) {
        copy.put(s, at);
      }
    }
    return copy;
  }

  /**
   * Whether this record still holds its match key at {@code now}: a retry with the same key finds
   * it. Every store applies exactly this rule inside its atomic claim. A state that releases the
   * key ends the hold at once; otherwise {@code holdUntil} does, which a transition may only
   * shorten (the gate shortens a fingerprint-matched execution's hold to its replay window on
   * delivery).
   */
  public boolean holdsKey(Instant now) {
    if (state.releasesKey()) {
      return false;
    }
    return now.isBefore(holdUntil);
  }

  /** The lease is absent or has lapsed at {@code now}. */
  public boolean leaseLapsed(Instant now) {
    return lease == null || !now.isBefore(lease.expiresAt());
  }

  /** When {@code s} was last entered, or {@code null}. */
  public Instant at(ExecutionState s) {
    return timeline.get(s);
  }

  /**
   * Applies a transition after checking it against the state machine; the result has version + 1.
   * Throws {@link IllegalTransitionException} for an illegal transition.
   */
  public Execution apply(Transition t) {
    state.checkTransitionTo(t.to());
    EnumMap<ExecutionState, Instant> tl = copyOf(timeline);
    tl.put(t.to(), t.at());
    return new Execution(
        id,
        version + 1,
        matchKey,
        matchKind,
        actor,
        tool,
        toolClass,
        fingerprint,
        intentScope,
        t.to(),
        tl,
        t.holdUntil() != null && t.holdUntil().isBefore(holdUntil) ? t.holdUntil() : holdUntil,
        t.retainUntil() != null ? t.retainUntil() : retainUntil,
        t.clearLease() ? null : (t.lease() != null ? t.lease() : lease),
        t.targetStatus() != null ? t.targetStatus() : targetStatus,
        t.error() != null ? t.error() : error,
        t.result() != null ? t.result() : result,
        t.awaitingInput(),
        summary);
  }

  /** This record with a new lease and version + 1 (a heartbeat or a take-over). */
  public Execution withLease(Lease newLease) {
    return new Execution(
        id,
        version + 1,
        matchKey,
        matchKind,
        actor,
        tool,
        toolClass,
        fingerprint,
        intentScope,
        state,
        timeline,
        holdUntil,
        retainUntil,
        newLease,
        targetStatus,
        error,
        result,
        awaitingInput,
        summary);
  }

  @Override
  public String toString() {
    return "Execution[" + id + " v" + version + " " + state.wireName() + " tool=" + tool + "]";
  }
}
