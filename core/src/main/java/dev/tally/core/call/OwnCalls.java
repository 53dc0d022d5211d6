package dev.tally.core.call;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tally.core.execution.Execution;
import dev.tally.core.gate.Confirmations;
import dev.tally.core.mcp.McpNames.MetaKeys;
import dev.tally.core.mcp.McpNames.Methods;
import dev.tally.core.mcp.ProtocolVersions;
import dev.tally.core.mcp.RpcOutcome;
import java.io.IOException;
import java.util.concurrent.CompletionStage;

/**
 * The MCP messages an adapter sends on its own behalf rather than relays (issue 18): the session it
 * opens to run a confirmed call or ask a status tool ({@code initialize}, {@code
 * notifications/initialized}), the status tool's {@code tools/call}, and how a confirmed call's
 * answer settles its execution. Both adapters' own clients (the sidecar's to its upstream, the
 * filter's to its own MCP endpoint) use these, so they speak the same way.
 */
public final class OwnCalls {
  /** The protocol version an own legacy-era session asks for. */
  public static final String LEGACY_VERSION = "2025-11-25";

  /** The JSON-RPC id of an own {@code initialize}. */
  public static final JsonNode INITIALIZE_ID = JsonNodeFactory.instance.numberNode(1);

  /** The JSON-RPC id of a status tool's call. */
  public static final JsonNode STATUS_ID = JsonNodeFactory.instance.textNode("tally-status");

  private static final ObjectMapper JSON = new ObjectMapper();

  private OwnCalls() {}

  /** An {@code initialize} of a legacy-era session for the client {@code clientName}. */
  public static ObjectNode initialize(String clientName) {
    ObjectNode init = JSON.createObjectNode();
    init.put("jsonrpc", "2.0");
    init.set("id", INITIALIZE_ID);
    init.put("method", Methods.INITIALIZE);
    ObjectNode p = init.putObject("params");
    p.put("protocolVersion", LEGACY_VERSION);
    p.putObject("capabilities");
    p.putObject("clientInfo").put("name", clientName).put("version", "1");
    return init;
  }

  /** {@code notifications/initialized}. */
  public static ObjectNode initialized() {
    ObjectNode n = JSON.createObjectNode();
    n.put("jsonrpc", "2.0");
    n.put("method", Methods.NOTIFICATIONS_INITIALIZED);
    return n;
  }

  /**
   * The status tool's call: {@code tools/call} of {@code tool} with {@code argumentsJson} (a JSON
   * object), id {@link #STATUS_ID}; {@code modern} adds the 2026-07-28 {@code _meta} version. Null
   * when {@code argumentsJson} is not JSON.
   */
  public static ObjectNode statusCall(String tool, byte[] argumentsJson, boolean modern) {
    ObjectNode call = JSON.createObjectNode();
    call.put("jsonrpc", "2.0");
    call.set("id", STATUS_ID);
    call.put("method", Methods.TOOLS_CALL);
    ObjectNode p = call.putObject("params");
    p.put("name", tool);
    try {
      p.set("arguments", JSON.readTree(argumentsJson));
    } catch (IOException e) {
      return null;
    }
    if (modern) {
      p.putObject("_meta").put(MetaKeys.PROTOCOL_VERSION, ProtocolVersions.MODERN);
    }
    return call;
  }

  /** The protocol version an {@code initialize} result names, or null. */
  public static String negotiated(RpcOutcome o) {
    if (!(o instanceof RpcOutcome.Result r)) {
      return null;
    }
    try {
      JsonNode v = JSON.readTree(r.result()).get("protocolVersion");
      return v != null && v.isTextual() ? v.textValue() : null;
    } catch (IOException e) {
      return null;
    }
  }

  /**
   * Whether the confirmed {@code run} is sent stateless as a 2026-07-28 call (its client sent that
   * version in {@code _meta}); else on an own legacy-era session.
   */
  public static boolean modern(Confirmations.Execute run) {
    String v = run.call().metaVersion();
    return v != null && ProtocolVersions.isModern(v);
  }

  /**
   * Settles the confirmed {@code run} once {@code recorded} (the {@link DispatchRecorder}'s answer
   * stage) completes: no client waits for this answer, so a replayable result is recorded {@code
   * completed_not_delivered} and the agent's retry replays it. Completes with the execution as it
   * then stands; never exceptionally.
   */
  public static CompletionStage<Execution> settle(
      Confirmations.Execute run, CompletionStage<Delivery> recorded) {
    return recorded
        .thenCompose(
            d ->
                d != null && d != Delivery.NONE
                    ? run.inFlight().notDelivered()
                    : java.util.concurrent.CompletableFuture.completedFuture(
                        run.inFlight().execution()))
        .exceptionally(err -> run.inFlight().execution());
  }
}
