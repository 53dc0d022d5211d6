package dev.tally.core.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.mcp.McpNames.HeaderNames;
import dev.tally.core.mcp.McpNames.Methods;
import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The one validator of a request's mirrored metadata headers against its body, for both eras and
 * both adapters ({@link Era} decides what is required). A failure is {@code HEADER_MISMATCH} (HTTP
 * 400, JSON-RPC -32020); its message names the header and the body member, never a value.
 *
 * <p>Implementation note: docs/specification/2026-07-28/basic/transports/streamable-http.mdx,
 * "Server Validation" and "Custom Headers from Tool Parameters". Unrecognized {@code Mcp-Param-*}
 * headers are ignored, as the spec requires of intermediaries; a tool's parameter headers are known
 * from its {@code tools/list} entry ({@link ToolParamHeaders}).
 */
public final class HeaderRules {
  private static final String PREFIX = "Header mismatch: ";

  private HeaderRules() {}

  /**
   * Checks {@code headers} against the classified message {@code scan}. For a {@code tools/call},
   * {@code arguments} (may be null when the call has none) and {@code paramHeaders} (its tool's
   * {@code x-mcp-header} parameters) are checked too; pass an empty map when the arguments were not
   * read. Empty when consistent.
   */
  public static Optional<TallyError> check(
      Headers headers, BodyScan scan, JsonNode arguments, Map<String, List<String>> paramHeaders) {
    String headerVersion = headers.get(HeaderNames.PROTOCOL_VERSION);
    Era era = Era.of(headerVersion, scan.metaVersion());
    boolean required = era.requiresHeaders() && scan.kind() == BodyScan.Kind.REQUEST;
    if (era.requiresHeaders()) {
      if (headerVersion == null) {
        return fail(HeaderNames.PROTOCOL_VERSION + " header is missing");
      }
      if (scan.metaVersion() != null && !scan.metaVersion().equals(headerVersion)) {
        return fail(
            HeaderNames.PROTOCOL_VERSION
                + " header does not match params._meta[\""
                + McpNames.MetaKeys.PROTOCOL_VERSION
                + "\"]");
      }
    }
    String method = headers.get(HeaderNames.METHOD);
    if (method == null) {
      if (required) {
        return fail(HeaderNames.METHOD + " header is missing");
      }
    } else if (!method.equals(scan.method())) {
      return fail(HeaderNames.METHOD + " header does not match the body's method");
    }
    String member = nameMember(scan.method());
    if (member != null) {
      Optional<TallyError> name = checkName(headers, member, scan.name(), required);
      if (name.isPresent()) {
        return name;
      }
    }
    if (Methods.TOOLS_CALL.equals(scan.method())) {
      for (Map.Entry<String, List<String>> e : paramHeaders.entrySet()) {
        Optional<TallyError> p = checkParam(headers, e.getKey(), e.getValue(), arguments, era);
        if (p.isPresent()) {
          return p;
        }
      }
    }
    return Optional.empty();
  }

  /**
   * The mirrored headers a 2026-07-28 client sends with a {@code tools/call} of {@code tool} whose
   * {@code params._meta} names {@code version}: {@code MCP-Protocol-Version}, {@code Mcp-Method},
   * {@code Mcp-Name}, and one {@code Mcp-Param-<name>} for each of {@code paramHeaders} (the tool's
   * {@code x-mcp-header} parameters) whose argument is a string, number or boolean; values are
   * Base64-sentinel encoded where the spec requires it. What {@link #check} accepts, so a call
   * Tally sends itself (a confirmed call) is exactly what a client would have sent. Numbers keep
   * their exact text (no rounding through a double).
   */
  public static Map<String, String> mirrored(
      String version, String tool, JsonNode arguments, Map<String, List<String>> paramHeaders) {
    Map<String, String> h = new LinkedHashMap<>();
    h.put(HeaderNames.PROTOCOL_VERSION, version);
    h.put(HeaderNames.METHOD, Methods.TOOLS_CALL);
    h.put(HeaderNames.NAME, Base64Sentinel.encode(tool));
    for (Map.Entry<String, List<String>> e : new java.util.TreeMap<>(paramHeaders).entrySet()) {
      JsonNode v = arguments;
      for (String step : e.getValue()) {
        v = v == null || !v.isObject() ? null : v.get(step);
      }
      String text = scalarText(v);
      if (text != null) {
        h.put(HeaderNames.PARAM_PREFIX + e.getKey(), Base64Sentinel.encode(text));
      }
    }
    return h;
  }

  /** A string, boolean or number argument as a header carries it; null for anything else. */
  private static String scalarText(JsonNode v) {
    if (v == null || v.isNull()) {
      return null;
    }
    if (v.isTextual()) {
      return v.textValue();
    }
    if (v.isBoolean()) {
      return v.booleanValue() ? "true" : "false";
    }
    if (v.isBigDecimal()) {
      return v.decimalValue().toString();
    }
    if (v.isNumber()) {
      return v.asText();
    }
    return null;
  }

  private static Optional<TallyError> checkName(
      Headers headers, String member, String bodyName, boolean required) {
    String h = headers.get(HeaderNames.NAME);
    if (h == null) {
      return required ? fail(HeaderNames.NAME + " header is missing") : Optional.empty();
    }
    if (!Base64Sentinel.isLegalHeaderValue(h)) {
      return fail(HeaderNames.NAME + " header contains invalid characters");
    }
    Optional<String> decoded = Base64Sentinel.decode(h);
    if (decoded.isEmpty()) {
      return fail(HeaderNames.NAME + " header holds an invalid Base64 sentinel");
    }
    if (bodyName == null || !decoded.get().equals(bodyName)) {
      return fail(HeaderNames.NAME + " header does not match params." + member);
    }
    return Optional.empty();
  }

  private static Optional<TallyError> checkParam(
      Headers headers, String name, List<String> path, JsonNode args, Era era) {
    String header = HeaderNames.PARAM_PREFIX + name;
    JsonNode v = args;
    for (String step : path) {
      v = v == null || !v.isObject() ? null : v.get(step);
    }
    String pointer = "params.arguments." + String.join(".", path);
    String h = headers.get(header);
    boolean bodyHas = v != null && !v.isNull();
    if (h == null) {
      return bodyHas && era.requiresHeaders()
          ? fail(header + " header is missing but " + pointer + " is present")
          : Optional.empty();
    }
    if (!bodyHas) {
      return fail(header + " header is present but " + pointer + " is absent");
    }
    if (!Base64Sentinel.isLegalHeaderValue(h)) {
      return fail(header + " header contains invalid characters");
    }
    Optional<String> decoded = Base64Sentinel.decode(h);
    if (decoded.isEmpty()) {
      return fail(header + " header holds an invalid Base64 sentinel");
    }
    if (!sameValue(decoded.get(), v)) {
      return fail(header + " header does not match " + pointer);
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

  /** The body member {@code Mcp-Name} mirrors for {@code method}, or null. */
  static String nameMember(String method) {
    if (method == null) {
      return null;
    }
    return switch (method) {
      case Methods.TOOLS_CALL, Methods.PROMPTS_GET -> "name";
      case Methods.RESOURCES_READ -> "uri";
      default -> null;
    };
  }

  private static Optional<TallyError> fail(String what) {
    return Optional.of(TallyError.of(TallyError.Code.HEADER_MISMATCH, PREFIX + what));
  }
}
