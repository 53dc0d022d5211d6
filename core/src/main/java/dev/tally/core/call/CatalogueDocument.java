package dev.tally.core.call;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tally.core.mcp.ToolListing;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The kept tool catalogue as bytes: a versioned JSON document that later versions only add fields
 * to.
 *
 * <pre>{@code
 * {"v":1,"target":"http://127.0.0.1:3000/mcp","learnedAt":"2026-12-01T10:00:00Z",
 *  "tools":[{"name":"search","readOnlyHint":true,"idempotentHint":null,
 *            "paramHeaders":{"region":["region"]}}]}
 * }</pre>
 *
 * <p>Reading is lenient where leniency is safe: unknown fields are ignored, a missing or null hint
 * is no hint, missing {@code paramHeaders} are none, an entry without a usable name is skipped. A
 * document of another {@code target} (the sidecar now fronts another server) says nothing. What is
 * kept is what the upstream said of its tools: names, hints and header parameters, never a value of
 * a call.
 */
final class CatalogueDocument {
  static final int VERSION = 1;

  private CatalogueDocument() {}

  static byte[] write(ObjectMapper json, String target, Instant at, List<ToolListing.Tool> tools) {
    ObjectNode doc = json.createObjectNode();
    doc.put("v", VERSION);
    doc.put("target", target);
    doc.put("learnedAt", at.toString());
    ArrayNode list = doc.putArray("tools");
    for (ToolListing.Tool t : tools) {
      ObjectNode o = list.addObject();
      o.put("name", t.name());
      o.put("readOnlyHint", t.readOnlyHint());
      o.put("idempotentHint", t.idempotentHint());
      ObjectNode headers = o.putObject("paramHeaders");
      t.paramHeaders()
          .forEach(
              (name, path) -> {
                ArrayNode p = headers.putArray(name);
                path.forEach(p::add);
              });
    }
    try {
      return json.writeValueAsBytes(doc);
    } catch (IOException e) {
      throw new IllegalStateException("cannot encode the tool catalogue", e);
    }
  }

  /**
   * The tools of {@code doc}, or {@code null} when it was kept for another target than {@code
   * target}.
   *
   * @throws IllegalArgumentException naming what is wrong (never a value) when {@code doc} is not a
   *     catalogue document
   */
  static List<ToolListing.Tool> read(ObjectMapper json, byte[] doc, String target) {
    JsonNode root;
    try {
      root = json.readTree(doc);
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException("not JSON");
    }
    if (root == null || !root.isObject()) {
      throw new IllegalArgumentException("not a JSON object");
    }
    JsonNode v = root.get("v");
    if (v == null || !v.isIntegralNumber() || v.asLong() < 1) {
      throw new IllegalArgumentException("v: missing or not a positive integer");
    }
    JsonNode kept = root.get("target");
    if (kept != null && kept.isTextual() && !kept.textValue().equals(target)) {
      return null;
    }
    List<ToolListing.Tool> out = new ArrayList<>();
    JsonNode tools = root.get("tools");
    if (tools == null || !tools.isArray()) {
      return out;
    }
    for (JsonNode t : tools) {
      JsonNode name = t.get("name");
      if (name == null || !name.isTextual() || name.textValue().isEmpty()) {
        continue;
      }
      out.add(
          new ToolListing.Tool(
              name.textValue(),
              bool(t.get("readOnlyHint")),
              bool(t.get("idempotentHint")),
              headers(t.get("paramHeaders"))));
    }
    return out;
  }

  private static Boolean bool(JsonNode n) {
    return n != null && n.isBoolean() ? n.booleanValue() : null;
  }

  private static Map<String, List<String>> headers(JsonNode n) {
    Map<String, List<String>> out = new LinkedHashMap<>();
    if (n == null || !n.isObject()) {
      return out;
    }
    for (Map.Entry<String, JsonNode> e : n.properties()) {
      if (!e.getValue().isArray() || e.getValue().isEmpty()) {
        continue;
      }
      List<String> path = new ArrayList<>();
      for (JsonNode p : e.getValue()) {
        if (!p.isTextual()) {
          path = null;
          break;
        }
        path.add(p.textValue());
      }
      if (path != null) {
        out.put(e.getKey(), List.copyOf(path));
      }
    }
    return out;
  }
}
