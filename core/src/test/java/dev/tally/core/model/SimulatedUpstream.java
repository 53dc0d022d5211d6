package dev.tally.core.model;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The MCP server behind the gate, as a model run needs it: it keeps every request body it receives,
 * runs the tool as the op says (a side effect), and answers. A {@code keyed} tool honours the
 * {@code Idempotency-Key} (the execution id) as such servers do: a key it has run before does not
 * run again and gets its first answer. Not thread-safe; a run drives it from one thread.
 */
final class SimulatedUpstream {
  /**
   * One request that reached the upstream.
   *
   * @param executionId the {@code Idempotency-Key} it came with (null for a read-only call)
   * @param actor who sent it (index into {@link World#ACTORS})
   * @param ran it ran the tool now: a new side effect
   */
  record Receipt(String executionId, int tool, int actor, byte[] body, boolean ran, Instant at) {}

  private final List<Receipt> receipts = new ArrayList<>();
  private final Map<String, byte[]> firstResults = new HashMap<>();
  private int effects;

  List<Receipt> receipts() {
    return receipts;
  }

  /** How many side effects happened, all tools together. */
  int effects() {
    return effects;
  }

  /**
   * Receives a dispatched call; returns the result object it answers with when {@code reaction}
   * answers with a result, else null.
   */
  byte[] receive(
      byte[] body, String executionId, int tool, int actor, Op.Reaction reaction, Instant now) {
    boolean keyed = World.classOf(tool) == dev.tally.core.contract.ToolClass.KEYED;
    boolean seen = keyed && firstResults.containsKey(executionId);
    boolean runs = reaction.executes && !seen;
    receipts.add(new Receipt(executionId, tool, actor, body.clone(), runs, now));
    if (runs) {
      effects++;
    }
    boolean answers =
        reaction == Op.Reaction.RESULT
            || reaction == Op.Reaction.RESULT_IS_ERROR
            || reaction == Op.Reaction.RESULT_LARGE
            || reaction == Op.Reaction.CRASH_AFTER_ANSWER;
    if (seen && firstResults.get(executionId) != null && answers) {
      return firstResults.get(executionId);
    }
    byte[] result = answers ? result(executionId, tool, actor, reaction) : null;
    if (runs && keyed) {
      firstResults.put(executionId, result);
    }
    return result;
  }

  /** A read-only call forwarded as the client sent it. */
  byte[] forward(byte[] body, int tool, int actor, Instant now) {
    receipts.add(new Receipt(null, tool, actor, body.clone(), false, now));
    return World.utf8(
        "{\"content\":[{\"type\":\"text\",\"text\":\"found for "
            + World.ACTORS.get(actor)
            + "\"}]}");
  }

  /**
   * The result text names the actor who asked and the execution, so that any copy shown to another
   * actor is recognizable as such.
   */
  private byte[] result(String executionId, int tool, int actor, Op.Reaction reaction) {
    String text =
        "ran #"
            + (effects)
            + " of "
            + World.TOOLS.get(tool)
            + " for "
            + World.ACTORS.get(actor)
            + " as "
            + executionId;
    StringBuilder padding = new StringBuilder();
    if (reaction == Op.Reaction.RESULT_LARGE) {
      padding.append(",{\"type\":\"text\",\"text\":\"");
      padding.append("x".repeat(World.MAX_RESULT_BYTES + 100));
      padding.append("\"}");
    }
    return World.utf8(
        "{\"content\":[{\"type\":\"text\",\"text\":\""
            + text
            + "\"}"
            + padding
            + "],\"isError\":"
            + (reaction == Op.Reaction.RESULT_IS_ERROR)
            + "}");
  }
}
