package dev.tally.sidecar.internal.rpc;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.mcp.Headers;
import java.math.BigDecimal;

/**
 * Validates the 2026-07-28 request metadata headers against the body ("Server Validation" in the
 * Streamable HTTP transport): {@code Mcp-Method}, {@code Mcp-Name}, {@code Mcp-Param-*} and {@code
 * MCP-Protocol-Version} versus {@code _meta}. Each check returns {@code null} when it passes, else
 * a message naming the header (never echoing a value).
 */
public final class ModernHeaders {
  /** The first protocol version whose requests carry validated metadata headers. */
  public static final String MODERN_VERSION = "2026-07-28";

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

  /** All checks for a {@code tools/call}. */
  public static String checkToolCall(
      Headers headers, ToolCallBody body, ToolSchemas schemas, String protocolVersion) {
    String mismatch =
        checkNameAndVersion(headers, body.tool(), body.metaProtocolVersion(), protocolVersion);
    if (mismatch != null) {
      return mismatch;
    }
    JsonNode args = body.arguments();
    for (ToolSchemas.HeaderParam p : schemas.headerParams(body.tool())) {
      String header = "Mcp-Param-" + p.name();
      JsonNode v = args;
      for (String k : p.path()) {
        v = v == null ? null : v.get(k);
      }
      String raw = headers.get(header);
      if (v == null || v.isNull()) {
        if (raw != null) {
          return "Header mismatch: " + header + " is present but the argument is absent";
        }
        continue;
      }
      if (raw == null) {
        return "Header mismatch: required header " + header + " is missing";
      }
      String decoded = HeaderValues.decode(raw);
      if (decoded == null) {
        return "Header mismatch: " + header + " has invalid characters or a malformed Base64 value";
      }
      if (!matches(decoded, v)) {
        return "Header mismatch: " + header + " does not match the argument value";
      }
    }
    return null;
  }

  /**
   * The checks of {@link #checkToolCall} that need no argument values: {@code MCP-Protocol-Version}
   * against {@code metaVersion} (the body's {@code _meta} protocol version, or {@code null}) and
   * {@code Mcp-Name} against {@code tool}. A tool with {@code Mcp-Param-*} headers needs {@link
   * #checkToolCall} as well.
   */
  public static String checkNameAndVersion(
      Headers headers, String tool, String metaVersion, String protocolVersion) {
    if (metaVersion != null && !metaVersion.equals(protocolVersion)) {
      return "Header mismatch: MCP-Protocol-Version does not match"
          + " params._meta[\"io.modelcontextprotocol/protocolVersion\"]";
    }
    String rawName = headers.get("Mcp-Name");
    if (rawName == null) {
      return "Header mismatch: required header Mcp-Name is missing";
    }
    String name = HeaderValues.decode(rawName);
    if (name == null) {
      return "Header mismatch: Mcp-Name has invalid characters or a malformed Base64 value";
    }
    if (!name.equals(tool)) {
      return "Header mismatch: Mcp-Name does not match params.name";
    }
    return null;
  }

  private static boolean matches(String header, JsonNode v) {
    if (v.isTextual()) {
      return header.equals(v.asText());
    }
    if (v.isBoolean()) {
      return header.equals(v.asBoolean() ? "true" : "false");
    }
    if (v.isNumber()) {
      try {
        return new BigDecimal(header.trim()).compareTo(v.decimalValue()) == 0;
      } catch (NumberFormatException e) {
        return false;
      }
    }
    return false;
  }
}
