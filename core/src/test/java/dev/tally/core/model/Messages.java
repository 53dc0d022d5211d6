package dev.tally.core.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tally.core.mcp.McpNames;
import dev.tally.core.mcp.TallyError;
import dev.tally.core.mcp.ToolResults;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * JSON-RPC messages of a model run: what the simulated upstream answers, and the check of what
 * Tally itself answered against the model's expectation.
 */
final class Messages {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The {@code data} of the upstream's -32603 errors (kept and replayed with the error). */
  static final byte[] ERROR_DATA = World.utf8("{\"detail\":\"the tool failed midway\"}");

  private Messages() {}

  static byte[] result(JsonNode id, byte[] result) {
    return World.utf8("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":" + utf8(result) + "}");
  }

  static byte[] rpcError(JsonNode id, int code, byte[] data) {
    return World.utf8(
        "{\"jsonrpc\":\"2.0\",\"id\":"
            + id
            + ",\"error\":{\"code\":"
            + code
            + ",\"message\":\"refused\""
            + (data == null ? "" : ",\"data\":" + utf8(data))
            + "}}");
  }

  /** What the client is told for a refusal or an answerless end. */
  static byte[] error(JsonNode id, TallyError error) {
    return ToolResults.error(id, error);
  }

  /** The JSON-RPC id of a request as the upstream got it. */
  static JsonNode upstreamId(byte[] request) {
    return read(request).get("id");
  }

  /** A short description of an answer, for logs. */
  static String summary(byte[] message) {
    JsonNode m = read(message);
    JsonNode tally = m.path("result").path("structuredContent").path("tally");
    if (tally.has("code")) {
      return tally.get("code").asText() + " " + tally.path("executionId").asText();
    }
    JsonNode replay = m.findValue(McpNames.MetaKeys.REPLAY);
    if (replay != null) {
      return "replay of " + replay.path("executionId").asText();
    }
    return m.has("error") ? "error " + m.get("error").path("code") : "result";
  }

  /**
   * Tally's own answer {@code message} to the request {@code id} is what {@code want} says: the
   * replay of the stored outcome (under the new id, with the marker naming the execution), or the
   * explicit result with its code and execution.
   */
  static void checkAnswer(byte[] message, JsonNode id, ReferenceModel.Expected want) {
    JsonNode m = read(message);
    if (!id.equals(m.get("id"))) {
      throw new Violation("decision", "answer to request " + id + " carries id " + m.get("id"));
    }
    if (want instanceof ReferenceModel.Replay r) {
      ReferenceModel.Exec e = r.exec();
      JsonNode marker;
      if (e.errorCode != 0) {
        JsonNode err = m.path("error");
        if (err.path("code").asInt() != e.errorCode) {
          throw new Violation(
              "decision",
              "expected the replay of error " + e.errorCode + " of " + e + ", got " + m);
        }
        marker = err.path("data").path(McpNames.MetaKeys.REPLAY);
      } else {
        ObjectNode result = (ObjectNode) m.path("result").deepCopy();
        marker = result.path("_meta").path(McpNames.MetaKeys.REPLAY);
        ((ObjectNode) result.path("_meta")).remove(McpNames.MetaKeys.REPLAY);
        if (result.path("_meta").isEmpty()) {
          result.remove("_meta");
        }
        if (!result.equals(read(e.result))) {
          throw new Violation(
              "decision", "the replay of " + e + " is not its stored result: " + summary(message));
        }
      }
      if (!e.id.equals(marker.path("executionId").asText())) {
        throw new Violation("decision", "expected a replay of " + e + ", got " + summary(message));
      }
      return;
    }
    if (want instanceof ReferenceModel.Respond r) {
      JsonNode tally = m.path("result").path("structuredContent").path("tally");
      if (!r.code().name().equals(tally.path("code").asText())
          || !r.exec().id.equals(tally.path("executionId").asText())) {
        throw new Violation("decision", "expected " + want + ", got " + summary(message));
      }
      return;
    }
    throw new Violation("decision", "expected " + want + ", got the answer " + summary(message));
  }

  private static JsonNode read(byte[] b) {
    try {
      return JSON.readTree(b);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String utf8(byte[] b) {
    return new String(b, java.nio.charset.StandardCharsets.UTF_8);
  }
}
