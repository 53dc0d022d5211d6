package dev.tally.core.mcp;

/**
 * The two eras of the Streamable HTTP transport, and what each requires of a request's mirrored
 * metadata headers ({@code MCP-Protocol-Version}, {@code Mcp-Method}, {@code Mcp-Name}, {@code
 * Mcp-Param-*}). In both eras a mirrored header that is sent must agree with the body (a gateway
 * may route on it); only the modern era requires them.
 */
public enum Era {
  /** 2025-03-26 … 2025-11-25: sessions, GET streams, resumption; no header is required. */
  LEGACY(false),
  /**
   * 2026-07-28 and later: every POST carries {@code MCP-Protocol-Version} (equal to the body's
   * {@code _meta} version), every request {@code Mcp-Method}, every {@code tools/call}, {@code
   * prompts/get} and {@code resources/read} request {@code Mcp-Name}, and every {@code tools/call}
   * the {@code Mcp-Param-*} headers its tool declares.
   */
  MODERN(true);

  private final boolean requiresHeaders;

  Era(boolean requiresHeaders) {
    this.requiresHeaders = requiresHeaders;
  }

  /** Whether the mirrored headers are required (not only checked when present). */
  public boolean requiresHeaders() {
    return requiresHeaders;
  }

  /**
   * The era of a request: modern when its {@code MCP-Protocol-Version} header names 2026-07-28 or
   * later, or when its body carries a {@code _meta} protocol version (only modern clients send
   * one); legacy otherwise.
   */
  public static Era of(String headerVersion, String metaVersion) {
    return ProtocolVersions.isModern(headerVersion) || metaVersion != null ? MODERN : LEGACY;
  }

  /** The era of a request judged by its header alone (for a GET or DELETE, which have no body). */
  public static Era ofHeader(String headerVersion) {
    return ProtocolVersions.isModern(headerVersion) ? MODERN : LEGACY;
  }
}
