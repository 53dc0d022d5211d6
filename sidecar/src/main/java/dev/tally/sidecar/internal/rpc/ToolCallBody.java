package dev.tally.sidecar.internal.rpc;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;

/**
 * A parsed {@code tools/call} request (it is small, so it is read into a tree once). Either {@link
 * #error()} is set (the body is not a valid call, naming what is wrong) or the accessors are.
 */
public final class ToolCallBody {
  /** {@code _meta} key carrying the execution id to the upstream. */
  public static final String EXECUTION_ID_META = "dev.tally/executionId";

  /** {@code _meta} key carrying the protocol version in the 2026-07-28 era. */
  public static final String PROTOCOL_VERSION_META = "io.modelcontextprotocol/protocolVersion";

  private final ObjectNode root;
  private final JsonNode id;
  private final String error;
  private final boolean tooDeep;

  private ToolCallBody(ObjectNode root, JsonNode id, String error, boolean tooDeep) {
    this.root = root;
    this.id = id;
    this.error = error;
    this.tooDeep = tooDeep;
  }

  /** Parses and checks {@code body}; never throws on bad input. */
  public static ToolCallBody parse(JsonRpc json, byte[] body, int off, int len) {
    JsonNode tree;
    try (JsonParser p = json.parser(body, off, len)) {
      tree = json.mapper().readTree(p);
      if (p.nextToken() != null) {
        return failed(null, "trailing content after the JSON-RPC object", false);
      }
    } catch (StreamConstraintsException e) {
      return failed(
          null, "JSON nesting deeper than the limit of " + json.maxDepth() + " levels", true);
    } catch (IOException e) {
      String what =
          e.getMessage() != null && e.getMessage().startsWith("Duplicate field")
              ? "duplicate object key"
              : "malformed JSON";
      return failed(null, what, false);
    }
    if (!(tree instanceof ObjectNode obj)) {
      return failed(null, "body is not a JSON-RPC object", false);
    }
    JsonNode id = obj.get("id");
    if (id != null && !(id.isTextual() || id.isIntegralNumber() || id.isNull())) {
      return failed(null, "/id must be a string or an integer", false);
    }
    if (!"2.0".equals(obj.path("jsonrpc").asText(null))) {
      return failed(id, "/jsonrpc must be \"2.0\"", false);
    }
    if (id == null || id.isNull()) {
      return failed(id, "/id is required for tools/call", false);
    }
    JsonNode params = obj.get("params");
    if (!(params instanceof ObjectNode)) {
      return failed(id, "/params must be an object", false);
    }
    JsonNode name = params.get("name");
    if (name == null || !name.isTextual() || name.asText().isEmpty()) {
      return failed(id, "/params/name must be a non-empty string", false);
    }
    JsonNode args = params.get("arguments");
    if (args != null && !args.isNull() && !args.isObject()) {
      return failed(id, "/params/arguments must be an object", false);
    }
    JsonNode meta = params.get("_meta");
    if (meta != null && !meta.isNull() && !meta.isObject()) {
      return failed(id, "/params/_meta must be an object", false);
    }
    return new ToolCallBody(obj, id, null, false);
  }

  private static ToolCallBody failed(JsonNode id, String error, boolean tooDeep) {
    return new ToolCallBody(null, id, error, tooDeep);
  }

  /** Why the body is not a valid call, or {@code null}. */
  public String error() {
    return error;
  }

  public boolean tooDeep() {
    return tooDeep;
  }

  /** The request id (may be set even when {@link #error()} is). */
  public JsonNode id() {
    return id;
  }

  public String tool() {
    return params().get("name").asText();
  }

  /** {@code params.arguments} or {@code null}. */
  public JsonNode arguments() {
    JsonNode a = params().get("arguments");
    return a == null || a.isNull() ? null : a;
  }

  /** {@code params._meta} or {@code null}. */
  public JsonNode meta() {
    JsonNode m = params().get("_meta");
    return m == null || m.isNull() ? null : m;
  }

  /** The call carries MRTR {@code inputResponses}: it continues an input-required execution. */
  public boolean continuation() {
    JsonNode r = params().get("inputResponses");
    return r != null && !r.isNull();
  }

  /** {@code params._meta["io.modelcontextprotocol/protocolVersion"]} or {@code null}. */
  public String metaProtocolVersion() {
    JsonNode m = meta();
    JsonNode v = m == null ? null : m.get(PROTOCOL_VERSION_META);
    return v != null && v.isTextual() ? v.asText() : null;
  }

  /**
   * The body to send upstream for execution {@code executionId}: a copy with {@code
   * params._meta["dev.tally/executionId"]} set.
   */
  public byte[] withExecutionId(JsonRpc json, String executionId) {
    ObjectNode copy = root.deepCopy();
    ObjectNode params = (ObjectNode) copy.get("params");
    JsonNode meta = params.get("_meta");
    ObjectNode m = meta instanceof ObjectNode o ? o : params.putObject("_meta");
    m.put(EXECUTION_ID_META, executionId);
    try {
      return json.mapper().writeValueAsBytes(copy);
    } catch (IOException e) {
      throw new IllegalStateException("cannot serialize a parsed tree", e);
    }
  }

  /** The parsed request (read only; callers must not change it). */
  public JsonNode tree() {
    return root;
  }

  private ObjectNode params() {
    return (ObjectNode) root.get("params");
  }
}
