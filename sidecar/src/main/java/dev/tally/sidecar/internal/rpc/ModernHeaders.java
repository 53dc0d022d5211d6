package dev.tally.sidecar.internal.rpc;

import dev.tally.core.mcp.Headers;
import dev.tally.core.mcp.McpRequestHeaders;
import dev.tally.core.mcp.ToolParamHeaders;

/**
 * Validates the 2026-07-28 request metadata headers against the body ("Server Validation" in the
 * Streamable HTTP transport): {@code Mcp-Method}, {@code Mcp-Name}, {@code Mcp-Param-*} and {@code
 * MCP-Protocol-Version} versus {@code _meta}. Each check returns {@code null} when it passes, else
 * a message naming the header (never echoing a value).
 */
public final class ModernHeaders {
  /** The first protocol version whose requests carry validated metadata headers. */
  public static final String MODERN_VERSION = McpRequestHeaders.MODERN_VERSION;

  private ModernHeaders() {}

  /** Whether a request with this {@code MCP-Protocol-Version} belongs to the 2026-07-28 era. */
  public static boolean isModern(String protocolVersion) {
    return protocolVersion != null && protocolVersion.compareTo(MODERN_VERSION) >= 0;
  }

  /** {@code Mcp-Method} must be present and equal the body's method. */
  public static String checkMethod(String header, String bodyMethod) {
    if (header == null) {
      return "Header mismatch: required header Mcp-Method is missing";
    }
    if (!header.equals(bodyMethod)) {
      return "Header mismatch: Mcp-Method does not match the body's method";
    }
    return null;
  }

  /**
   * All checks for a {@code tools/call}, by {@link McpRequestHeaders#check}: {@code
   * MCP-Protocol-Version} against {@code _meta}, {@code Mcp-Name} (Base64 sentinel decoded) against
   * {@code params.name}, and each learned {@code Mcp-Param-*} against its argument. {@code
   * protocolVersion} is the header's value, which the core check reads itself.
   */
  public static String checkToolCall(
      Headers headers, ToolCallBody body, ToolParamHeaders params, String protocolVersion) {
    return McpRequestHeaders.check(headers, body.tree(), params.forTool(body.tool()))
        .map(m -> "Header mismatch: " + m)
        .orElse(null);
  }

  /**
   * The checks of {@link #checkToolCall} that need no parsed body, for the read-only fast path (by
   * {@link McpRequestHeaders#checkVersionAndName}): {@code MCP-Protocol-Version} against {@code
   * metaVersion} (the body's {@code _meta} protocol version, or {@code null}) and {@code Mcp-Name}
   * against {@code tool}. A tool with {@code Mcp-Param-*} headers needs {@link #checkToolCall}.
   * {@code protocolVersion} is the header's value, which the core check reads itself.
   */
  public static String checkNameAndVersion(
      Headers headers, String tool, String metaVersion, String protocolVersion) {
    return McpRequestHeaders.checkVersionAndName(headers, metaVersion, "name", tool)
        .map(m -> "Header mismatch: " + m)
        .orElse(null);
  }
}
