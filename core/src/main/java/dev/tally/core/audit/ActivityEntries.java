package dev.tally.core.audit;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tally.core.execution.Execution;
import dev.tally.core.execution.MatchKind;
import java.time.Instant;
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

  static final int MAX_NAME = 256;
  static final int MAX_SUMMARY = 1024;

  private ActivityEntries() {}

  /** Whether the change from {@code before} to {@code after} is worth an entry. */
  static boolean isRecorded(Execution before, Execution after) {
    return before == null
        || before.state() != after.state()
        || before.awaitingInput() != after.awaitingInput()
        || !Objects.equals(owner(before), owner(after));
  }

  static ObjectNode transition(
      Execution before, Execution after, String target, SessionRef session, Instant now) {
    Instant at = after.at(after.state());
    ObjectNode e = common(TRANSITION, after, target, session, at != null ? at : now);
    if (before != null) {
      e.put("from", before.state().wireName());
    }
    String owner = owner(after);
    if (owner != null) {
      e.put("owner", Text.clean(owner, MAX_NAME));
    }
    if (after.targetStatus() != null) {
      e.put("target_status", after.targetStatus().intValue());
    }
    if (after.error() != null) {
      e.put("rpc_error", after.error().code());
    }
    if (after.result() != null) {
      e.put("result", after.result().isError() ? "tool_error" : "ok");
      e.put("result_bytes", after.result().bytes());
      e.put("result_retained", after.result().retained() ? "yes" : "no");
    }
    if (after.awaitingInput()) {
      e.put("awaiting_input", "yes");
    }
    if (!after.summary().isEmpty()) {
      e.put("summary", Text.clean(after.summary(), MAX_SUMMARY));
    }
    return e;
  }

  static ObjectNode retry(
      Execution execution, RetryOutcome outcome, String target, SessionRef session, Instant at) {
    ObjectNode e = common(RETRY, execution, target, session, at);
    e.put("outcome", outcome.wireName());
    return e;
  }

  private static ObjectNode common(
      String type, Execution x, String target, SessionRef session, Instant at) {
    ObjectNode e = JsonNodeFactory.instance.objectNode();
    e.put(EntryCodec.TYPE, type);
    e.put(EntryCodec.AT, at.toString());
    e.put("execution", x.id().value());
    e.put("version", x.version());
    e.put("state", x.state().wireName());
    e.put("actor", Text.clean(x.actor(), MAX_NAME));
    e.put("tool", Text.clean(x.tool(), MAX_NAME));
    e.put("class", x.toolClass().wireName());
    e.put("fingerprint", Text.clean(x.fingerprint(), MAX_NAME));
    e.put("match", matchName(x.matchKind()));
    e.put("scope", Text.clean(x.intentScope(), MAX_NAME));
    if (target != null) {
      e.put("target", target);
    }
    if (session != null) {
      e.put("session", session.journalValue());
    }
    return e;
  }

  static String matchName(MatchKind kind) {
    return kind.name().toLowerCase(Locale.ROOT);
  }

  private static String owner(Execution x) {
    return x.lease() == null ? null : x.lease().owner();
  }
}
