package dev.tally.sidecar.internal.rpc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tally.core.contract.ContractRegistry;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the sidecar learns from {@code tools/list} answers: annotations go to the {@link
 * ContractRegistry}; {@code x-mcp-header} designations (2026-07-28) are kept here to validate
 * {@code Mcp-Param-*} headers. Thread-safe.
 */
public final class ToolSchemas {
  /** One parameter mirrored into a header: {@code Mcp-Param-<name>} ← the value at {@code path}. */
  public record HeaderParam(String name, List<String> path) {
    public HeaderParam {
      path = List.copyOf(path);
    }

    /** The header name in lower case. */
    public String headerName() {
      return "mcp-param-" + name.toLowerCase(Locale.ROOT);
    }
  }

  private final ContractRegistry contracts;
  private final Map<String, List<HeaderParam>> headerParams = new ConcurrentHashMap<>();
  private byte[] lastResult;

  private ToolSchemas(ContractRegistry contracts) {
    this.contracts = contracts;
  }

  public static ToolSchemas create(ContractRegistry contracts) {
    return new ToolSchemas(contracts);
  }

  /**
   * Learns from the {@code tools/list} {@code result} object at {@code [off, off + len)} of {@code
   * message}, parsing it with {@code mapper}, unless it is byte for byte the result learned last
   * (clients list tools often; the answer rarely changes). Ignores anything malformed.
   */
  public synchronized void learn(byte[] message, int off, int len, ObjectMapper mapper) {
    byte[] last = lastResult;
    if (last != null && Arrays.equals(message, off, off + len, last, 0, last.length)) {
      return;
    }
    byte[] result = Arrays.copyOfRange(message, off, off + len);
    lastResult = null;
    try {
      learn(mapper.readTree(result));
    } catch (IOException | RuntimeException e) {
      return;
    }
    lastResult = result;
  }

  /** Learns from a {@code tools/list} {@code result} object. Ignores anything malformed. */
  public synchronized void learn(JsonNode result) {
    JsonNode tools = result == null ? null : result.get("tools");
    if (tools == null || !tools.isArray()) {
      return;
    }
    for (JsonNode tool : tools) {
      JsonNode name = tool.get("name");
      if (name == null || !name.isTextual()) {
        continue;
      }
      JsonNode ann = tool.path("annotations");
      contracts.learnAnnotations(
          name.asText(), hint(ann, "readOnlyHint"), hint(ann, "idempotentHint"));
      List<HeaderParam> params = new ArrayList<>();
      collect(tool.path("inputSchema"), new ArrayList<>(), params, 0);
      if (params.isEmpty()) {
        headerParams.remove(name.asText());
      } else {
        headerParams.put(name.asText(), List.copyOf(params));
      }
    }
  }

  /** The header-mirrored parameters of {@code tool} (empty when none are known). */
  public List<HeaderParam> headerParams(String tool) {
    return headerParams.getOrDefault(tool, Collections.emptyList());
  }

  private static Boolean hint(JsonNode ann, String field) {
    JsonNode v = ann.get(field);
    return v != null && v.isBoolean() ? v.asBoolean() : null;
  }

  /**
   * Statically reachable properties only: a chain of {@code properties} keys (spec §x-mcp-header).
   */
  private static void collect(
      JsonNode schema, List<String> path, List<HeaderParam> out, int depth) {
    JsonNode props = schema.get("properties");
    if (props == null || !props.isObject() || depth > 16) {
      return;
    }
    for (Map.Entry<String, JsonNode> e : props.properties()) {
      path.add(e.getKey());
      JsonNode h = e.getValue().get("x-mcp-header");
      if (h != null && h.isTextual() && !h.asText().isEmpty()) {
        out.add(new HeaderParam(h.asText(), path));
      }
      collect(e.getValue(), path, out, depth + 1);
      path.remove(path.size() - 1);
    }
  }
}
