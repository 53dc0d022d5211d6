package dev.tally.core.audit;

import dev.tally.core.execution.Execution;
import dev.tally.core.execution.MatchKind;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Locale;
import java.util.Objects;

/**
 * Builds activity entry bodies from an {@link Execution}. This class is the whitelist: a field
 * reaches the journal only if it is copied here. Strings are cleaned by {@link Text} and bounded;
 * numbers are integers. The journal adds {@code v}, {@code seq}, {@code prev} and {@code hash}.
 */
final class ActivityEntries {
  static final String TRANSITION = "transition";
  static final String RETRY = "retry";
  static final String STATUS_LOOKUP = "status_lookup";
  static final String CONTROL = "control";

  static final int MAX_NAME = 256;
  static final int MAX_SUMMARY = 1024;

  /** The most members an activity entry has, with {@code v}, {@code seq} and {@code prev}. */
  private static final int MEMBERS = 25;

  private ActivityEntries() {}

  /** Whether the change from {@code before} to {@code after} is worth an entry. */
  static boolean isRecorded(Execution before, Execution after) {
    return before == null
        || before.state() != after.state()
        || before.awaitingInput() != after.awaitingInput()
        || !Objects.equals(owner(before), owner(after));
  }

  /** The entry of a transition, at the time the new state was entered (else {@code clock}'s). */
  static FlatEntry transition(
      Execution before, Execution after, String target, SessionRef session, InstantSource clock) {
    Instant at = after.at(after.state());
    return entry(
        TRANSITION, after, before, null, target, session, at != null ? at : clock.instant());
  }

  static FlatEntry retry(
      Execution execution, RetryOutcome outcome, String target, SessionRef session, Instant at) {
    return entry(RETRY, execution, null, outcome, target, session, at);
  }

  /**
   * A transition entry ({@code outcome} null) or a retry entry. Members are added in canonical
   * (sorted) order, which {@link FlatEntry} takes at one comparison each.
   */
  private static FlatEntry entry(
      String type,
      Execution x,
      Execution before,
      RetryOutcome outcome,
      String target,
      SessionRef session,
      Instant at) {
    boolean transition = outcome == null;
    FlatEntry e = new FlatEntry(MEMBERS);
    e.put("actor", Text.clean(x.actor(), MAX_NAME));
    e.put(EntryCodec.AT, IsoInstant.format(at));
    if (transition && x.awaitingInput()) {
      e.put("awaiting_input", "yes");
    }
    e.put("class", x.toolClass().wireName());
    e.put("execution", x.id().value());
    e.put("fingerprint", Text.clean(x.fingerprint(), MAX_NAME));
    if (before != null) {
      e.put("from", before.state().wireName());
    }
    e.put("match", matchName(x.matchKind()));
    if (!transition) {
      e.put("outcome", outcome.wireName());
    }
    String owner = transition ? owner(x) : null;
    if (owner != null) {
      e.put("owner", Text.clean(owner, MAX_NAME));
    }
    if (transition && x.result() != null) {
      e.put("result", x.result().isError() ? "tool_error" : "ok");
      e.put("result_bytes", x.result().bytes());
      e.put("result_retained", x.result().retained() ? "yes" : "no");
    }
    if (transition && x.error() != null) {
      e.put("rpc_error", x.error().code());
    }
    e.put("scope", Text.clean(x.intentScope(), MAX_NAME));
    if (session != null) {
      e.put("session", session.journalValue());
    }
    e.put("state", x.state().wireName());
    if (transition && !x.summary().isEmpty()) {
      e.put("summary", Text.clean(x.summary(), MAX_SUMMARY));
    }
    if (target != null) {
      e.put("target", target);
    }
    if (transition && x.targetStatus() != null) {
      e.put("target_status", x.targetStatus().intValue());
    }
    e.put("tool", Text.clean(x.tool(), MAX_NAME));
    e.put(EntryCodec.TYPE, type);
    e.put("version", x.version());
    return e;
  }

  /** A {@code status_lookup} entry (issue 18): which status tool said what about {@code x}. */
  static FlatEntry statusLookup(
      Execution x, String statusTool, String answer, int attempt, String target, Instant at) {
    FlatEntry e = new FlatEntry(MEMBERS);
    e.put("actor", Text.clean(x.actor(), MAX_NAME));
    e.put("answer", Text.clean(answer, MAX_NAME));
    e.put(EntryCodec.AT, IsoInstant.format(at));
    e.put("attempt", attempt);
    e.put("class", x.toolClass().wireName());
    e.put("execution", x.id().value());
    e.put("fingerprint", Text.clean(x.fingerprint(), MAX_NAME));
    e.put("match", matchName(x.matchKind()));
    e.put("scope", Text.clean(x.intentScope(), MAX_NAME));
    e.put("state", x.state().wireName());
    if (statusTool != null) {
      e.put("status_tool", Text.clean(statusTool, MAX_NAME));
    }
    if (target != null) {
      e.put("target", target);
    }
    e.put("tool", Text.clean(x.tool(), MAX_NAME));
    e.put(EntryCodec.TYPE, STATUS_LOOKUP);
    e.put("version", x.version());
    return e;
  }

  /**
   * A {@code control} entry (issue 18): the operator's write switch moved, or an actor was revoked
   * or restored; {@code actor} null: for everyone.
   */
  static FlatEntry control(String event, String actor, String position, Instant at) {
    FlatEntry e = new FlatEntry(8);
    if (actor != null) {
      e.put("actor", Text.clean(actor, MAX_NAME));
    }
    e.put("applies_to", actor == null ? "all" : "actor");
    e.put(EntryCodec.AT, IsoInstant.format(at));
    e.put("event", Text.clean(event, MAX_NAME));
    if (position != null) {
      e.put("position", Text.clean(position, MAX_NAME));
    }
    e.put(EntryCodec.TYPE, CONTROL);
    return e;
  }

  static String matchName(MatchKind kind) {
    return kind.name().toLowerCase(Locale.ROOT);
  }

  private static String owner(Execution x) {
    return x.lease() == null ? null : x.lease().owner();
  }
}
