package dev.tally.filter;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.gate.TallyError;

/**
 * The parts of a {@code tools/call} request the gate needs, or the refusal naming the member that
 * is wrong (never its value).
 */
record ToolCallShape(
    String tool, JsonNode arguments, JsonNode meta, boolean continuation, TallyError problem) {

  /** MRTR: a follow-up of an input-required answer carries {@code params.inputResponses}. */
  static final String INPUT_RESPONSES = "inputResponses";

  static ToolCallShape of(JsonNode request) {
    JsonNode v = request.get("jsonrpc");
    if (v == null || !"2.0".equals(v.asText(null)) || !v.isTextual()) {
      return refuse(TallyError.Code.INVALID_REQUEST, "jsonrpc: expected \"2.0\"");
    }
    JsonNode id = request.get("id");
    if (id == null || id.isNull()) {
      return refuse(
          TallyError.Code.INVALID_REQUEST,
          "id: missing (tools/call must be a request, not a notification)");
    }
    if (!FilterEngine.validId(id)) {
      return refuse(TallyError.Code.INVALID_REQUEST, "id: expected a string or a number");
    }
    JsonNode params = request.get("params");
    if (params == null || !params.isObject()) {
      return refuse(TallyError.Code.INVALID_REQUEST, "params: expected an object");
    }
    JsonNode name = params.get("name");
    if (name == null || !name.isTextual() || name.textValue().isEmpty()) {
      return refuse(TallyError.Code.INVALID_REQUEST, "params.name: expected a non-empty string");
    }
    JsonNode args = params.get("arguments");
    if (args != null && !args.isNull() && !args.isObject()) {
      return refuse(TallyError.Code.INVALID_ARGUMENTS, "params.arguments: expected an object");
    }
    JsonNode meta = params.get("_meta");
    if (meta != null && !meta.isNull() && !meta.isObject()) {
      return refuse(TallyError.Code.INVALID_REQUEST, "params._meta: expected an object");
    }
    JsonNode input = params.get(INPUT_RESPONSES);
    return new ToolCallShape(
        name.textValue(),
        args == null || args.isNull() ? null : args,
        meta == null || meta.isNull() ? null : meta,
        input != null && !input.isNull(),
        null);
  }

  private static ToolCallShape refuse(TallyError.Code code, String message) {
    return new ToolCallShape(null, null, null, false, TallyError.of(code, message));
  }
}
