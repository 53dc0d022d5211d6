package dev.tally.core.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.contract.ContractRegistry;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What Tally learns from a {@code tools/list} result: each tool's annotations (hints for its
 * contract) and its {@code x-mcp-header} parameters (for 2026-07-28 header validation).
 */
public final class ToolListing {

  /**
   * One listed tool.
   *
   * @param name the tool name
   * @param readOnlyHint {@code annotations.readOnlyHint}, or {@code null}
   * @param idempotentHint {@code annotations.idempotentHint}, or {@code null}
   * @param paramHeaders lower-cased {@code x-mcp-header} name → the property path in the arguments
   */
  public record Tool(
      String name,
      Boolean readOnlyHint,
      Boolean idempotentHint,
      Map<String, List<String>> paramHeaders) {
    public Tool {
      paramHeaders = Map.copyOf(paramHeaders);
    }
  }

  private ToolListing() {}

  /**
   * The tools of a {@code tools/list} {@code result} object; entries without a name are skipped.
   */
  public static List<Tool> parse(JsonNode result) {
    List<Tool> out = new ArrayList<>();
    JsonNode tools = result == null ? null : result.get("tools");
    if (tools == null || !tools.isArray()) {
      return out;
    }
    for (JsonNode t : tools) {
      JsonNode name = t.get("name");
      if (name == null || !name.isTextual()) {
        continue;
      }
      JsonNode ann = t.get("annotations");
      Boolean ro = bool(ann, "readOnlyHint");
      Boolean idem = bool(ann, "idempotentHint");
      Map<String, List<String>> headers = new LinkedHashMap<>();
      collectHeaders(t.get("inputSchema"), new ArrayList<>(), headers, 0);
      out.add(new Tool(name.textValue(), ro, idem, headers));
    }
    return out;
  }

  /** Parses {@code result} and records what it says in {@code contracts} and {@code headers}. */
  public static List<Tool> learn(
      JsonNode result, ContractRegistry contracts, ToolParamHeaders headers) {
    List<Tool> tools = parse(result);
    for (Tool t : tools) {
      contracts.learnAnnotations(t.name(), t.readOnlyHint(), t.idempotentHint());
      headers.put(t.name(), t.paramHeaders());
    }
    return tools;
  }

  private static Boolean bool(JsonNode obj, String field) {
    if (obj == null) {
      return null;
    }
    JsonNode v = obj.get(field);
    return v != null && v.isBoolean() ? v.booleanValue() : null;
  }

  /** Only properties reachable through a chain of {@code properties} keys count (the spec). */
  private static void collectHeaders(
      JsonNode schema, List<String> path, Map<String, List<String>> out, int depth) {
    if (schema == null || !schema.isObject() || depth > 32) {
      return;
    }
    JsonNode props = schema.get("properties");
    if (props == null || !props.isObject()) {
      return;
    }
    for (Map.Entry<String, JsonNode> e : props.properties()) {
      List<String> p = new ArrayList<>(path);
      p.add(e.getKey());
      JsonNode h = e.getValue().get("x-mcp-header");
      if (h != null && h.isTextual() && !h.textValue().isEmpty()) {
        out.putIfAbsent(h.textValue().toLowerCase(Locale.ROOT), List.copyOf(p));
      }
      collectHeaders(e.getValue(), p, out, depth + 1);
    }
  }
}
