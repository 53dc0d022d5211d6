package dev.tally.core.store.journal;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.execution.Lease;
import dev.tally.core.execution.ResultRef;
import dev.tally.core.execution.RpcError;
import dev.tally.core.store.internal.ExecutionBinary;
import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

/**
 * The JSON document of an {@link Execution} in a journal record, document version {@value
 * #VERSION}. Fields are only ever added: the reader ignores unknown fields, treats a missing or
 * null optional field as absent and refuses a document whose {@code v} is newer than it knows.
 */
final class ExecutionJson {
  static final int VERSION = 1;

  private ExecutionJson() {}

  static void write(JsonGenerator g, Execution e) throws IOException {
    g.writeStartObject();
    g.writeNumberField("v", VERSION);
    g.writeStringField("id", e.id().value());
    g.writeNumberField("version", e.version());
    g.writeStringField("matchKey", e.matchKey());
    g.writeStringField("matchKind", e.matchKind().name().toLowerCase(Locale.ROOT));
    g.writeStringField("actor", e.actor());
    g.writeStringField("tool", e.tool());
    g.writeStringField("toolClass", e.toolClass().wireName());
    g.writeStringField("fingerprint", e.fingerprint());
    g.writeStringField("intentScope", e.intentScope());
    g.writeStringField("state", e.state().wireName());
    g.writeObjectFieldStart("timeline");
    for (Map.Entry<ExecutionState, Instant> t : e.timeline().entrySet()) {
      g.writeStringField(t.getKey().wireName(), t.getValue().toString());
    }
    g.writeEndObject();
    g.writeStringField("holdUntil", e.holdUntil().toString());
    g.writeStringField("retainUntil", e.retainUntil().toString());
    if (e.lease() != null) {
      g.writeObjectFieldStart("lease");
      g.writeStringField("owner", e.lease().owner());
      g.writeStringField("expiresAt", e.lease().expiresAt().toString());
      g.writeEndObject();
    }
    if (e.targetStatus() != null) {
      g.writeNumberField("targetStatus", e.targetStatus());
    }
    if (e.error() != null) {
      g.writeObjectFieldStart("error");
      g.writeNumberField("code", e.error().code());
      g.writeStringField("message", e.error().message());
      g.writeEndObject();
    }
    if (e.result() != null) {
      g.writeObjectFieldStart("result");
      g.writeNumberField("bytes", e.result().bytes());
      g.writeBooleanField("retained", e.result().retained());
      g.writeBooleanField("isError", e.result().isError());
      g.writeEndObject();
    }
    g.writeBooleanField("awaitingInput", e.awaitingInput());
    g.writeStringField("summary", e.summary());
    g.writeEndObject();
  }

  /**
   * Reads a document; throws {@link IllegalArgumentException} naming the field (never its value,
   * except for enum names) when it is missing or malformed.
   */
  static Execution read(JsonNode n) {
    if (n == null || !n.isObject()) {
      throw new IllegalArgumentException("execution document is not a JSON object");
    }
    int v = n.path("v").asInt(VERSION);
    if (v > VERSION) {
      throw new IllegalArgumentException(
          "execution document version " + v + " (this release reads up to " + VERSION + ")");
    }
    String id = text(n, "id");
    if (!ExecutionId.isValid(id)) {
      throw new IllegalArgumentException("/id: not an execution id");
    }
    JsonNode version = required(n, "version");
    if (!version.canConvertToLong() || version.asLong() < 1) {
      throw new IllegalArgumentException("/version: expected a positive integer");
    }
    return new Execution(
        new ExecutionId(id),
        version.asLong(),
        text(n, "matchKey"),
        ExecutionBinary.matchKind(text(n, "matchKind")),
        text(n, "actor"),
        text(n, "tool"),
        ExecutionBinary.toolClass(text(n, "toolClass")),
        text(n, "fingerprint"),
        text(n, "intentScope"),
        ExecutionBinary.state("/state", text(n, "state")),
        timeline(n.get("timeline")),
        instant("/holdUntil", text(n, "holdUntil")),
        instant("/retainUntil", text(n, "retainUntil")),
        lease(n.get("lease")),
        present(n.get("targetStatus")) ? n.get("targetStatus").asInt() : null,
        error(n.get("error")),
        result(n.get("result")),
        n.path("awaitingInput").asBoolean(false),
        present(n.get("summary")) ? n.get("summary").asText() : "");
  }

  private static boolean present(JsonNode n) {
    return n != null && !n.isNull() && !n.isMissingNode();
  }

  private static JsonNode required(JsonNode n, String field) {
    return required(n, "", field);
  }

  private static JsonNode required(JsonNode n, String parent, String field) {
    JsonNode v = n.get(field);
    if (!present(v)) {
      throw new IllegalArgumentException(parent + "/" + field + ": missing");
    }
    return v;
  }

  private static String text(JsonNode n, String field) {
    return text(n, "", field);
  }

  private static String text(JsonNode n, String parent, String field) {
    JsonNode v = required(n, parent, field);
    if (!v.isTextual()) {
      throw new IllegalArgumentException(parent + "/" + field + ": expected a string");
    }
    return v.textValue();
  }

  private static Instant instant(String pointer, String s) {
    try {
      return Instant.parse(s);
    } catch (DateTimeParseException e) {
      // Not chained: the parser's message quotes the value.
      throw new IllegalArgumentException(pointer + ": expected an ISO-8601 instant");
    }
  }

  private static Map<ExecutionState, Instant> timeline(JsonNode n) {
    EnumMap<ExecutionState, Instant> out = new EnumMap<>(ExecutionState.class);
    if (!present(n)) {
      return out;
    }
    if (!n.isObject()) {
      throw new IllegalArgumentException("/timeline: expected an object");
    }
    for (Map.Entry<String, JsonNode> f : n.properties()) {
      ExecutionState s = ExecutionBinary.state("/timeline", f.getKey());
      out.put(s, instant("/timeline/" + f.getKey(), f.getValue().asText()));
    }
    return out;
  }

  private static Lease lease(JsonNode n) {
    if (!present(n)) {
      return null;
    }
    return new Lease(
        text(n, "/lease", "owner"), instant("/lease/expiresAt", text(n, "/lease", "expiresAt")));
  }

  private static RpcError error(JsonNode n) {
    if (!present(n)) {
      return null;
    }
    return new RpcError(required(n, "/error", "code").asInt(), n.path("message").asText(""));
  }

  private static ResultRef result(JsonNode n) {
    if (!present(n)) {
      return null;
    }
    return new ResultRef(
        required(n, "/result", "bytes").asInt(),
        n.path("retained").asBoolean(false),
        n.path("isError").asBoolean(false));
  }
}
