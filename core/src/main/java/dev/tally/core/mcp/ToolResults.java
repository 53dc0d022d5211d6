package dev.tally.core.mcp;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tally.core.execution.Execution;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The one encoder of what Tally itself answers (replays, explicit results, refusals); both adapters
 * use it so their bytes cannot drift. All methods return a complete JSON-RPC response as UTF-8. The
 * table of codes is in {@code docs/tool-results.md}.
 */
public final class ToolResults {
  /**
   * What a replay marker tells the agent (field {@code repeat}): nothing ran again, and how to run
   * the action again on purpose.
   */
  public static final String REPEAT_HINT =
      "Nothing ran again: this is the stored result of an earlier identical call. To run the"
          + " action again on purpose, send a new idempotency key (the idempotencyKey argument or"
          + " the Idempotency-Key header) or a new intent scope.";

  /** Reads stored outcomes without rounding: a replayed number keeps every digit it came with. */
  private static final ObjectMapper MAPPER =
      com.fasterxml.jackson.databind.json.JsonMapper.builder()
          .enable(com.fasterxml.jackson.databind.DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .disable(
              com.fasterxml.jackson.databind.cfg.JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES)
          .build();

  private static final JsonNodeFactory F = JsonNodeFactory.instance;

  private ToolResults() {}

  /**
   * A replay: the stored {@code result} with {@code _meta["dev.tally/replay"]} added, under {@code
   * id}. A {@code null} result replays the stored JSON-RPC error of the execution.
   */
  public static byte[] replay(JsonNode id, Execution execution, byte[] result) {
    ObjectNode marker = F.objectNode();
    marker.put("executionId", execution.id().value());
    marker.put("state", execution.state().wireName());
    if (execution.at(dev.tally.core.execution.ExecutionState.COMPLETED) != null) {
      marker.put(
          "completedAt",
          execution.at(dev.tally.core.execution.ExecutionState.COMPLETED).toString());
    }
    marker.put("repeat", REPEAT_HINT);
    ObjectNode response = envelope(id);
    if (execution.error() != null || result == null) {
      // A JSON-RPC error, replayed as it came: code, message and data (kept in the result's
      // place); an object data gets the marker beside its own members, any other data stays as
      // it was and carries none (adding one would change what the caller gets).
      ObjectNode err = response.putObject("error");
      int code = execution.error() != null ? execution.error().code() : -32603;
      err.put("code", code);
      err.put("message", execution.error() != null ? execution.error().message() : "");
      JsonNode data = result == null ? null : parse(result, execution);
      if (data == null) {
        err.putObject("data").set(McpNames.MetaKeys.REPLAY, marker);
      } else if (data instanceof ObjectNode od) {
        od.set(McpNames.MetaKeys.REPLAY, marker);
        err.set("data", od);
      } else {
        err.set("data", data);
      }
      return write(response);
    }
    JsonNode stored = parse(result, execution);
    ObjectNode r = stored instanceof ObjectNode o ? o : F.objectNode();
    JsonNode meta = r.get("_meta");
    ObjectNode m = meta instanceof ObjectNode mo ? mo : r.putObject("_meta");
    m.set(McpNames.MetaKeys.REPLAY, marker);
    response.set("result", r);
    return write(response);
  }

  /** An explicit {@code isError: true} result with {@code structuredContent.tally}. */
  public static byte[] respond(JsonNode id, TallyCode code, Execution execution) {
    return respond(id, code.name(), code.retryable(), code.next(), execution);
  }

  private static ObjectNode shown(String codeName, Execution execution) {
    return TallyCode.RESULT_WITHHELD.name().equals(codeName)
        ? ActivityRecord.identity(execution)
        : ActivityRecord.of(execution);
  }

  private static byte[] respond(
      JsonNode id, String codeName, boolean retryable, String next, Execution execution) {
    ObjectNode tally = shown(codeName, execution);
    tally.put("code", codeName);
    tally.put("retryable", retryable);
    tally.put("next", next);
    String text =
        codeName
            + ": "
            + next
            + " (execution "
            + execution.id().value()
            + ", state "
            + execution.state().wireName()
            + ")";
    return toolResult(id, text, true, tallyContent(tally));
  }

  /** {@code {"tally": tally}}: the {@code structuredContent} of Tally's own coded results. */
  private static ObjectNode tallyContent(ObjectNode tally) {
    ObjectNode sc = F.objectNode();
    sc.set("tally", tally);
    return sc;
  }

  /**
   * A JSON-RPC response for {@code id} whose result is a tool result: one text content block,
   * {@code isError} and {@code structuredContent}.
   */
  private static byte[] toolResult(
      JsonNode id, String text, boolean isError, ObjectNode structuredContent) {
    ObjectNode result = F.objectNode();
    ObjectNode block = result.putArray("content").addObject();
    block.put("type", "text");
    block.put("text", text);
    result.put("isError", isError);
    result.set("structuredContent", structuredContent);
    ObjectNode response = envelope(id);
    response.set("result", result);
    return write(response);
  }

  /**
   * What the client of a call that was sent and got no answer is told, at once: the {@code
   * OUTCOME_UNKNOWN} result for {@code shown} (the execution as recorded {@code outcome_unknown}).
   * For a contract whose unknown outcomes are re-dispatched under the same key, the retry is safe
   * and the result says so ({@code retryable: true}); otherwise it is the very result a retry gets.
   */
  public static byte[] unknownOutcome(
      JsonNode id, Execution shown, dev.tally.core.contract.ToolContract contract) {
    if (contract.unknownOutcome() != dev.tally.core.contract.UnknownOutcomePolicy.REDISPATCH) {
      return respond(id, TallyCode.OUTCOME_UNKNOWN, shown);
    }
    return respond(id, TallyCode.OUTCOME_UNKNOWN.name(), true, REDISPATCH_NEXT, shown);
  }

  /** What the agent should do after an unknown outcome of a tool that honours the key. */
  public static final String REDISPATCH_NEXT =
      "The action was sent but its outcome is unknown. Retry with the same arguments: it is sent"
          + " again under the same idempotency key, which the tool honours, so it takes effect"
          + " at most once.";

  /** The code of a refused value in a tool result ({@link TallyError.Code#isValidation()}). */
  public static final String VALIDATION_ERROR = "VALIDATION_ERROR";

  /**
   * The {@code VALIDATION_ERROR} tool result for a refusal of a value the agent chose (HTTP 200):
   * {@code isError: true}, the message naming what was wrong (never the value), {@code
   * structuredContent.tally} with {@code code}, {@code reason} (the refusal's code), {@code
   * retryable: false} and {@code next}. Nothing was recorded or sent.
   */
  public static byte[] validationError(JsonNode id, TallyError error) {
    String next = "Nothing was done. Fix the value and call again.";
    ObjectNode tally = F.objectNode();
    tally.put("v", 1);
    tally.put("code", VALIDATION_ERROR);
    tally.put("reason", error.code().name());
    tally.put("message", error.message());
    tally.put("retryable", false);
    tally.put("next", next);
    return toolResult(
        id, VALIDATION_ERROR + ": " + error.message() + ". " + next, true, tallyContent(tally));
  }

  /**
   * The answer to a call that waits for its person (issue 18): a tool result, not an error, whose
   * {@code structuredContent} holds {@code status: "pending_confirmation"}, the {@code actionId}
   * (the execution id), the {@code confirmUrl}, {@code expiresAt}, a human-readable {@code
   * summary}, the {@code preview} (secrets masked) and the activity record under {@code tally}.
   */
  public static byte[] pending(
      JsonNode id,
      Execution execution,
      java.time.Instant expiresAt,
      String confirmUrl,
      ObjectNode preview) {
    ObjectNode sc = pendingContent(execution, expiresAt, confirmUrl, preview);
    return toolResult(id, sc.path("summary").textValue(), false, sc);
  }

  /**
   * The same pending call offered through the protocol (2026-07-28 era, a client that declared
   * URL-mode elicitation): an MRTR input-required result whose one input request, keyed by the
   * {@code actionId}, is a URL-mode {@code elicitation/create} with the {@code confirmUrl} and the
   * summary as its message, plus {@code requestState} ({@code dev.tally.core.gate.RequestStates}).
   * The pending result's fields ({@link #pending}'s {@code structuredContent}) are in {@code
   * result._meta["dev.tally/pending"]}.
   */
  public static byte[] inputRequired(
      JsonNode id,
      Execution execution,
      java.time.Instant expiresAt,
      String confirmUrl,
      ObjectNode preview,
      String requestState) {
    ObjectNode sc = pendingContent(execution, expiresAt, confirmUrl, preview);
    ObjectNode result = F.objectNode();
    result.put("resultType", RpcResponseWatcher.INPUT_REQUIRED);
    ObjectNode ask = result.putObject("inputRequests").putObject(execution.id().value());
    ask.put("method", "elicitation/create");
    ObjectNode params = ask.putObject("params");
    params.put("mode", "url");
    params.put("message", sc.path("summary").textValue());
    params.put("url", confirmUrl);
    result.put("requestState", requestState);
    result.putObject("_meta").set(McpNames.MetaKeys.PENDING, sc);
    ObjectNode response = envelope(id);
    response.set("result", result);
    return write(response);
  }

  private static ObjectNode pendingContent(
      Execution execution, java.time.Instant expiresAt, String confirmUrl, ObjectNode preview) {
    String summary =
        "Nothing was done yet: the person who authorized this app must confirm this action ("
            + execution.tool()
            + ") at "
            + confirmUrl
            + " before "
            + expiresAt
            + ". Retry the same call afterwards to get its result; until then it stays pending.";
    ObjectNode sc = F.objectNode();
    sc.put("status", "pending_confirmation");
    sc.put("actionId", execution.id().value());
    sc.put("confirmUrl", confirmUrl);
    sc.put("expiresAt", expiresAt.toString());
    sc.put("summary", summary);
    sc.set("preview", preview);
    ObjectNode tally = ActivityRecord.of(execution);
    tally.put("code", TallyCode.PENDING_CONFIRMATION.name());
    tally.put("retryable", true);
    tally.put("next", TallyCode.PENDING_CONFIRMATION.next());
    sc.set("tally", tally);
    return sc;
  }

  /** A JSON-RPC error response for a refusal (send with {@link TallyError.Code#httpStatus()}). */
  public static byte[] error(JsonNode id, TallyError error) {
    ObjectNode response = envelope(id);
    ObjectNode err = response.putObject("error");
    err.put("code", error.code().rpcCode());
    err.put("message", error.message());
    if (error.code() == TallyError.Code.UNKNOWN_TOOL) {
      return write(response);
    }
    ObjectNode tally = err.putObject("data").putObject("tally");
    tally.put("code", error.code().name());
    tally.put("retryable", error.code().retryable());
    return write(response);
  }

  private static ObjectNode envelope(JsonNode id) {
    ObjectNode o = F.objectNode();
    o.put("jsonrpc", "2.0");
    o.set("id", id == null ? F.nullNode() : id);
    return o;
  }

  private static JsonNode parse(byte[] stored, Execution execution) {
    try {
      return MAPPER.readTree(stored);
    } catch (IOException e) {
      throw new UncheckedIOException("stored outcome of " + execution.id() + " is not JSON", e);
    } catch (NumberFormatException e) {
      // Jackson's refusal of a number it cannot hold exactly; its message quotes the number
      throw new UncheckedIOException(
          "stored outcome of " + execution.id() + " is not JSON",
          new IOException("a number out of range"));
    }
  }

  /**
   * {@code response}, a result Tally wrote itself ({@link #respond}, {@link #pending}, {@link
   * #validationError}: none carries a {@code resultType}), with {@code result.resultType:
   * "complete"}, which every 2026-07-28 result must carry (spec {@code schema.ts}, {@code Result};
   * the TypeScript SDK v2 client refuses a result without it). Inserted as bytes: nothing else
   * changes. A response without a {@code result} object is returned as it is.
   */
  public static byte[] typedComplete(byte[] response) {
    byte[] marker = "\"result\":{".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    int at = indexOf(response, marker);
    if (at < 0) {
      return response;
    }
    int open = at + marker.length;
    boolean empty = open < response.length && response[open] == '}';
    byte[] member =
        (empty ? "\"resultType\":\"complete\"" : "\"resultType\":\"complete\",")
            .getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    byte[] out = new byte[response.length + member.length];
    System.arraycopy(response, 0, out, 0, open);
    System.arraycopy(member, 0, out, open, member.length);
    System.arraycopy(response, open, out, open + member.length, response.length - open);
    return out;
  }

  /**
   * The first {@code needle} in {@code b}; Jackson escapes every quote inside a string, so in what
   * {@link #write} produced the first match is the member itself.
   */
  private static int indexOf(byte[] b, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= b.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (b[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  private static byte[] write(ObjectNode o) {
    try {
      return MAPPER.writeValueAsBytes(o);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
