package dev.tally.core.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Validates the request metadata headers of MCP 2026-07-28 ({@code MCP-Protocol-Version}, {@code
 * Mcp-Method}, {@code Mcp-Name}, {@code Mcp-Param-*}) against the JSON-RPC body. A mismatch is
 * refused with {@code HEADER_MISMATCH} (HTTP 400, JSON-RPC -32020). Messages name the header and
 * the body member, never a value.
 *
 * <p>Implementation note: docs/specification/2026-07-28/basic/transports/streamable-http.mdx,
 * "Server Validation". {@code Mcp-Method} is checked in every era when sent (it must never route a
 * body differently from what it says); the other checks apply to modern requests only: those whose
 * {@code MCP-Protocol-Version} is 2026-07-28 or later, or whose {@code _meta} names a protocol
 * version. Unrecognized {@code Mcp-Param-*} headers are ignored, as the spec requires of
 * intermediaries.
 */
public final class McpRequestHeaders {
  public static final String PROTOCOL_VERSION = "MCP-Protocol-Version";
  public static final String METHOD = "Mcp-Method";
  public static final String NAME = "Mcp-Name";
  public static final String PARAM_PREFIX = "Mcp-Param-";
  public static final String SESSION_ID = "Mcp-Session-Id";

  /** The first protocol version with header mirroring and MRTR. */
  public static final String MODERN_VERSION = "2026-07-28";

  /** {@code params._meta} key carrying the protocol version in 2026-07-28. */
  public static final String PROTOCOL_VERSION_META = "io.modelcontextprotocol/protocolVersion";

  private McpRequestHeaders() {}

  /** Whether the request speaks 2026-07-28 or later. */
  public static boolean isModern(Headers headers, JsonNode params) {
    String v = headers.get(PROTOCOL_VERSION);
    if (v != null && v.compareTo(MODERN_VERSION) >= 0) {
      return true;
    }
    return metaVersion(params) != null;
  }

  /**
   * Checks {@code Mcp-Method} against a scanned body method (the fast path for requests whose body
   * is not parsed into a tree). Empty when consistent, else the refusal message.
   */
  public static Optional<String> checkMethod(Headers headers, String bodyMethod) {
    String h = headers.get(METHOD);
    if (h != null && !h.equals(bodyMethod)) {
      return Optional.of(METHOD + " header does not match the body's method");
    }
    return Optional.empty();
  }

  /**
   * Checks a parsed request. {@code paramHeaders} are the tool's {@code x-mcp-header} parameters
   * (see {@link ToolParamHeaders}). Empty when consistent, else the refusal message.
   */
  public static Optional<String> check(
      Headers headers, JsonNode request, Map<String, List<String>> paramHeaders) {
    JsonNode m = request.get("method");
    String method = m != null && m.isTextual() ? m.textValue() : null;
    Optional<String> r = checkMethod(headers, method);
    if (r.isPresent()) {
      return r;
    }
    JsonNode params = request.get("params");
    if (!isModern(headers, params)) {
      return Optional.empty();
    }
    String nameMember = nameMember(method);
    JsonNode bodyName = nameMember == null || params == null ? null : params.get(nameMember);
    Optional<String> r2 =
        checkVersionAndName(
            headers,
            metaVersion(params),
            nameMember,
            bodyName != null && bodyName.isTextual() ? bodyName.textValue() : null);
    if (r2.isPresent()) {
      return r2;
    }
    if ("tools/call".equals(method) && !paramHeaders.isEmpty()) {
      JsonNode args = params == null ? null : params.get("arguments");
      for (Map.Entry<String, List<String>> e : paramHeaders.entrySet()) {
        Optional<String> p = checkParam(headers, e.getKey(), e.getValue(), args);
        if (p.isPresent()) {
          return p;
        }
      }
    }
    return Optional.empty();
  }

  /**
   * The checks of {@link #check} that need no tree, for a modern-era request whose method was
   * already checked: {@code MCP-Protocol-Version} present and equal to {@code metaVersion} (the
   * body's {@code _meta} protocol version, or {@code null}), {@code Mcp-Method} present, and, when
   * {@code nameMember} is not {@code null} ({@code name} for {@code tools/call}), {@code Mcp-Name}
   * (Base64 sentinel decoded) equal to {@code bodyName}. {@code Mcp-Param-*} headers are not
   * checked.
   */
  public static Optional<String> checkVersionAndName(
      Headers headers, String metaVersion, String nameMember, String bodyName) {
    String version = headers.get(PROTOCOL_VERSION);
    if (version == null) {
      return Optional.of(PROTOCOL_VERSION + " header is missing");
    }
    if (metaVersion != null && !metaVersion.equals(version)) {
      return Optional.of(
          PROTOCOL_VERSION
              + " header does not match params._meta[\""
              + PROTOCOL_VERSION_META
              + "\"]");
    }
    if (headers.get(METHOD) == null) {
      return Optional.of(METHOD + " header is missing");
    }
    if (nameMember == null) {
      return Optional.empty();
    }
    String h = headers.get(NAME);
    if (h == null) {
      return Optional.of(NAME + " header is missing");
    }
    if (!Base64Sentinel.isLegalHeaderValue(h)) {
      return Optional.of(NAME + " header contains invalid characters");
    }
    Optional<String> decoded = Base64Sentinel.decode(h);
    if (decoded.isEmpty()) {
      return Optional.of(NAME + " header holds an invalid Base64 sentinel");
    }
    if (bodyName == null || !decoded.get().equals(bodyName)) {
      return Optional.of(NAME + " header does not match params." + nameMember);
    }
    return Optional.empty();
  }

  private static Optional<String> checkParam(
      Headers headers, String name, List<String> path, JsonNode args) {
    String header = PARAM_PREFIX + name;
    JsonNode v = args;
    for (String step : path) {
      v = v == null || !v.isObject() ? null : v.get(step);
    }
    String pointer = "params.arguments." + String.join(".", path);
    String h = headers.get(header);
    boolean bodyHas = v != null && !v.isNull();
    if (h == null) {
      return bodyHas
          ? Optional.of(header + " header is missing but " + pointer + " is present")
          : Optional.empty();
    }
    if (!bodyHas) {
      return Optional.of(header + " header is present but " + pointer + " is absent");
    }
    if (!Base64Sentinel.isLegalHeaderValue(h)) {
      return Optional.of(header + " header contains invalid characters");
    }
    Optional<String> decoded = Base64Sentinel.decode(h);
    if (decoded.isEmpty()) {
      return Optional.of(header + " header holds an invalid Base64 sentinel");
    }
    if (!sameValue(decoded.get(), v)) {
      return Optional.of(header + " header does not match " + pointer);
    }
    return Optional.empty();
  }

  private static boolean sameValue(String header, JsonNode body) {
    if (body.isTextual()) {
      return header.equals(body.textValue());
    }
    if (body.isBoolean()) {
      return header.equals(body.booleanValue() ? "true" : "false");
    }
    if (body.isNumber()) {
      try {
        return new BigDecimal(header.trim()).compareTo(body.decimalValue()) == 0;
      } catch (NumberFormatException e) {
        return false;
      }
    }
    return false;
  }

  private static String nameMember(String method) {
    if (method == null) {
      return null;
    }
    return switch (method) {
      case "tools/call", "prompts/get" -> "name";
      case "resources/read" -> "uri";
      default -> null;
    };
  }

  private static String metaVersion(JsonNode params) {
    if (params == null || !params.isObject()) {
      return null;
    }
    JsonNode meta = params.get("_meta");
    if (meta == null || !meta.isObject()) {
      return null;
    }
    JsonNode v = meta.get(PROTOCOL_VERSION_META);
    return v != null && v.isTextual() ? v.textValue() : null;
  }
}
