package dev.tally.core.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tally.core.contract.ToolClass;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.mcp.McpNames;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The invariants of issue 22, each checked from what the clients and the upstream observed (not
 * from the model's predictions): at most one side effect per intent inside its window, no result
 * shown to another actor, argument bytes unchanged upstream. Each throws a {@link Violation}.
 */
final class Invariants {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern RESULT_TEXT = Pattern.compile("for (\\w+) as (act_\\w+)");

  private Invariants() {}

  /**
   * The upstream ran at most one execution per intent inside that execution's window, and a
   * non-{@code keyed} execution at most once (a {@code keyed} upstream deduplicates by execution
   * id, so for such tools executions are counted, not requests). The window of an execution that
   * may have had an effect: {@code resultRetention} after its acceptance, except for a key-less one
   * that was delivered: then {@code attachWindow} after acceptance and at least {@code
   * replayWindow} after the delivery. A first attempt that failed releases the intent at once.
   */
  static void atMostOneEffectPerIntent(SimulatedUpstream upstream, ReferenceModel model) {
    Map<String, Integer> runs = new HashMap<>();
    Map<ReferenceModel.Slot, List<ReferenceModel.Exec>> bySlot = new LinkedHashMap<>();
    for (SimulatedUpstream.Receipt r : upstream.receipts()) {
      if (!r.ran()) {
        continue;
      }
      ReferenceModel.Exec e = model.find(r.executionId());
      if (e == null) {
        throw new Violation(
            "effects", "the upstream ran " + r.executionId() + ", which no call was told about");
      }
      int n = runs.merge(r.executionId(), 1, Integer::sum);
      if (n > 1 && World.classOf(e.tool) != ToolClass.KEYED) {
        throw new Violation(
            "effects",
            "the upstream ran "
                + World.TOOLS.get(e.tool)
                + " execution "
                + e.id
                + " "
                + n
                + " times");
      }
      List<ReferenceModel.Exec> ran = bySlot.computeIfAbsent(e.slot, s -> new ArrayList<>());
      if (!ran.contains(e)) {
        ran.add(e);
      }
    }
    for (List<ReferenceModel.Exec> ran : bySlot.values()) {
      ran.sort(Comparator.comparing(e -> e.accepted));
      for (int i = 1; i < ran.size(); i++) {
        ReferenceModel.Exec a = ran.get(i - 1);
        ReferenceModel.Exec b = ran.get(i);
        if (a.releasedByError) {
          // Its caller was told it failed; running the retry is what the contract asks for.
          continue;
        }
        Instant end = windowEnd(a);
        if (b.accepted.isBefore(end)) {
          throw new Violation(
              "effects",
              "intent "
                  + describe(a)
                  + " ran twice: "
                  + a.id
                  + " (accepted "
                  + a.accepted
                  + ", now "
                  + a.state.wireName()
                  + ", its window ends "
                  + end
                  + ") and "
                  + b.id
                  + " (accepted "
                  + b.accepted
                  + ")");
        }
      }
    }
  }

  private static Instant windowEnd(ReferenceModel.Exec a) {
    Instant retention = a.accepted.plus(World.RETENTION);
    if (a.byKey || a.state != ExecutionState.DELIVERED || a.deliveredAt == null) {
      return retention;
    }
    Instant window = a.accepted.plus(World.ATTACH_WINDOW);
    Instant storm = a.deliveredAt.plus(World.REPLAY_WINDOW);
    Instant end = window.isAfter(storm) ? window : storm;
    return end.isBefore(retention) ? end : retention;
  }

  private static String describe(ReferenceModel.Exec e) {
    return World.ACTORS.get(e.actor)
        + "/"
        + World.TOOLS.get(e.tool)
        + (e.byKey ? "/key#" + e.slot.key() : "/args#" + e.args + "/scope#" + e.scope);
  }

  /**
   * Nothing in {@code message} (what {@code actor}'s connection was given) comes from another
   * actor's execution: no upstream result made for another actor, no replay marker or activity
   * record naming another actor's execution.
   */
  static void noForeignResult(int actor, byte[] message, ReferenceModel model) {
    JsonNode m = parse(message);
    if (m == null) {
      return; // not JSON-RPC (an upstream's own HTTP error page): nothing of an execution
    }
    List<String> named = new ArrayList<>();
    for (JsonNode text : m.findValues("text")) {
      Matcher t = RESULT_TEXT.matcher(text.asText());
      while (t.find()) {
        if (!t.group(1).equals(World.ACTORS.get(actor))) {
          throw new Violation(
              "actors",
              World.ACTORS.get(actor)
                  + " was shown the result of "
                  + t.group(2)
                  + ", made for "
                  + t.group(1));
        }
        named.add(t.group(2));
      }
    }
    for (JsonNode replay : m.findValues(McpNames.MetaKeys.REPLAY)) {
      named.add(replay.path("executionId").asText());
    }
    JsonNode tally = m.path("result").path("structuredContent").path("tally");
    if (tally.has("executionId")) {
      named.add(tally.get("executionId").asText());
    }
    for (String id : named) {
      ReferenceModel.Exec e = model.find(id);
      if (e == null) {
        throw new Violation(
            "actors", World.ACTORS.get(actor) + " was told of " + id + ", an unknown execution");
      }
      if (e.actor != actor) {
        throw new Violation(
            "actors",
            World.ACTORS.get(actor)
                + " was told of "
                + id
                + ", an execution of "
                + World.ACTORS.get(e.actor));
      }
    }
  }

  /**
   * The upstream got the client's request byte for byte apart from {@code params._meta}, which is
   * the client's own plus {@code dev.tally/executionId: executionId} and the dispatch span's {@code
   * traceparent} (each replacing one the client sent).
   */
  private static final String TRACEPARENT = "00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}";

  static void sameArguments(byte[] client, byte[] upstream, String executionId) {
    MetaCut.Parts sent = MetaCut.of(client);
    MetaCut.Parts got = MetaCut.of(upstream);
    if (!Arrays.equals(sent.rest(), got.rest())) {
      throw new Violation(
          "bytes",
          "the upstream got other bytes than the client sent (apart from _meta):\n  client:   "
              + new String(sent.rest(), StandardCharsets.UTF_8)
              + "\n  upstream: "
              + new String(got.rest(), StandardCharsets.UTF_8));
    }
    ObjectNode want = sent.meta().deepCopy();
    want.put(McpNames.MetaKeys.EXECUTION_ID, executionId);
    // The dispatch span's trace context (SEP-414), whatever the client put there.
    JsonNode tp = got.meta().get(McpNames.MetaKeys.TRACEPARENT);
    if (tp == null || !tp.isTextual() || !tp.textValue().matches(TRACEPARENT)) {
      throw new Violation("bytes", "params._meta upstream has no valid traceparent: " + got.meta());
    }
    want.set(McpNames.MetaKeys.TRACEPARENT, tp);
    if (!want.equals(got.meta())) {
      throw new Violation("bytes", "params._meta upstream is " + got.meta() + ", expected " + want);
    }
  }

  static JsonNode parse(byte[] message) {
    try {
      JsonNode n = JSON.readTree(message);
      return n != null && n.isObject() && n.has("jsonrpc") ? n : null;
    } catch (IOException e) {
      return null;
    }
  }
}
