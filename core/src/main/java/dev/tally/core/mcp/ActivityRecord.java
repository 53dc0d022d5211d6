package dev.tally.core.mcp;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionState;
import java.time.Instant;
import java.util.Map;

/**
 * The activity record an agent and an operator see for one execution (format version 1): id, state,
 * tool, fingerprint, the timeline, the upstream status or error. Holds no argument value, actor
 * credential or result. Only add fields; readers ignore unknown ones.
 */
public final class ActivityRecord {
  public static final int VERSION = 1;
  private static final JsonNodeFactory F = JsonNodeFactory.instance;

  private ActivityRecord() {}

  /** The record as JSON. */
  public static ObjectNode of(Execution e) {
    ObjectNode o = identity(e);
    if (e.targetStatus() != null) {
      o.put("targetStatus", e.targetStatus());
    }
    if (e.error() != null) {
      ObjectNode err = o.putObject("targetError");
      err.put("code", e.error().code());
      err.put("message", e.error().message());
    }
    if (e.result() != null) {
      ObjectNode r = o.putObject("result");
      r.put("bytes", e.result().bytes());
      r.put("retained", e.result().retained());
      r.put("isError", e.result().isError());
    }
    return o;
  }

  /**
   * The record without anything the upstream answered (no {@code targetStatus}, {@code targetError}
   * or {@code result}): what a caller who did not prove the execution's identity may see ({@code
   * RESULT_WITHHELD}).
   */
  public static ObjectNode identity(Execution e) {
    ObjectNode o = F.objectNode();
    o.put("v", VERSION);
    o.put("executionId", e.id().value());
    o.put("state", e.state().wireName());
    o.put("tool", e.tool());
    o.put("toolClass", e.toolClass().wireName());
    o.put("fingerprint", e.fingerprint());
    o.put(
        "matchedBy",
        e.matchKind() == dev.tally.core.execution.MatchKind.IDEMPOTENCY_KEY
            ? "idempotency_key"
            : "fingerprint");
    ObjectNode tl = o.putObject("timeline");
    for (Map.Entry<ExecutionState, Instant> t : e.timeline().entrySet()) {
      tl.put(t.getKey().wireName() + "_at", t.getValue().toString());
    }
    return o;
  }
}
