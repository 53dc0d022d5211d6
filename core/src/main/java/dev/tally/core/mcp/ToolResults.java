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
  private static final ObjectMapper MAPPER = new ObjectMapper();
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
    ObjectNode response = envelope(id);
    if (result == null) {
      ObjectNode err = response.putObject("error");
      int code = execution.error() != null ? execution.error().code() : -32603;
      err.put("code", code);
      err.put("message", execution.error() != null ? execution.error().message() : "");
      err.putObject("data").set(McpNames.MetaKeys.REPLAY, marker);
      return write(response);
    }
    JsonNode stored;
    try {
      stored = MAPPER.readTree(result);
    } catch (IOException e) {
      throw new UncheckedIOException("stored result of " + execution.id() + " is not JSON", e);
    }
    ObjectNode r = stored instanceof ObjectNode o ? o : F.objectNode();
    JsonNode meta = r.get("_meta");
    ObjectNode m = meta instanceof ObjectNode mo ? mo : r.putObject("_meta");
    m.set(McpNames.MetaKeys.REPLAY, marker);
    response.set("result", r);
    return write(response);
  }

  /** An explicit {@code isError: true} result with {@code structuredContent.tally}. */
  public static byte[] respond(JsonNode id, TallyCode code, Execution execution) {
    ObjectNode tally = ActivityRecord.of(execution);
    tally.put("code", code.name());
    tally.put("retryable", code.retryable());
    tally.put("next", code.next());
    ObjectNode result = F.objectNode();
    ObjectNode text = result.putArray("content").addObject();
    text.put("type", "text");
    text.put(
        "text",
        code.name()
            + ": "
            + code.next()
            + " (execution "
            + execution.id().value()
            + ", state "
            + execution.state().wireName()
            + ")");
    result.put("isError", true);
    result.putObject("structuredContent").set("tally", tally);
    ObjectNode response = envelope(id);
    response.set("result", result);
    return write(response);
  }

  /** A JSON-RPC error response for a refusal (send with {@link TallyError.Code#httpStatus()}). */
  public static byte[] error(JsonNode id, TallyError error) {
    ObjectNode response = envelope(id);
    ObjectNode err = response.putObject("error");
    err.put("code", error.code().rpcCode());
    err.put("message", error.message());
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

  private static byte[] write(ObjectNode o) {
    try {
      return MAPPER.writeValueAsBytes(o);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
