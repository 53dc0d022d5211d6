package dev.tally.core.observe;

import dev.tally.core.mcp.BodyScan;
import dev.tally.core.mcp.Era;
import dev.tally.core.mcp.Headers;
import dev.tally.core.mcp.McpNames.HeaderNames;

/**
 * What the OpenTelemetry MCP semantic conventions (semantic-conventions-genai, MCP spans) say about
 * one request: {@code mcp.method.name}, {@code gen_ai.tool.name}, {@code mcp.protocol.version},
 * {@code mcp.session.id} (legacy-era requests only: the 2026-07-28 era has no sessions) and {@code
 * jsonrpc.request.id}. Values Tally reads from the wire are never argument values, so every field
 * may be exported.
 *
 * @param method the JSON-RPC method, never null
 * @param tool the tool of a {@code tools/call}, else null
 * @param protocolVersion the {@code MCP-Protocol-Version} header, or null
 * @param sessionId the {@code Mcp-Session-Id} of a legacy-era request, else null
 * @param requestId the JSON-RPC id as text ({@code 7}, {@code "a"} as {@code a}), or null
 */
public record McpOperation(
    String method, String tool, String protocolVersion, String sessionId, String requestId) {
  /** Longest header value copied into an attribute; longer ones are cut (never a secret). */
  static final int MAX_VALUE = 256;

  public McpOperation {
    method = method == null ? "unknown" : method;
    tool = cut(tool);
    protocolVersion = cut(protocolVersion);
    sessionId = cut(sessionId);
    requestId = cut(requestId);
  }

  /** The operation of the message {@code scan} (classified by core) sent with {@code headers}. */
  public static McpOperation of(BodyScan scan, Headers headers) {
    String version = headers.get(HeaderNames.PROTOCOL_VERSION);
    String session =
        Era.ofHeader(version) == Era.LEGACY ? headers.get(HeaderNames.SESSION_ID) : null;
    String id = scan.id() == null || scan.id().isNull() ? null : scan.id().asText();
    return new McpOperation(
        scan.method(), scan.isToolsCall() ? scan.name() : null, version, session, id);
  }

  /** {@code {mcp.method.name} {gen_ai.tool.name}}, or the method alone when there is no tool. */
  public String spanName() {
    return tool == null ? method : method + " " + tool;
  }

  private static String cut(String s) {
    return s == null || s.length() <= MAX_VALUE ? s : s.substring(0, MAX_VALUE);
  }
}
