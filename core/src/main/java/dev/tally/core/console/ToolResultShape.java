package dev.tally.core.console;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Base64;

/**
 * Whether a JSON value is an MCP {@code CallToolResult} (MCP schema 2025-06-18 and later): what an
 * operator's {@code resolve} stores is replayed to agents as the tool's result, so it must be one.
 *
 * <ul>
 *   <li>{@code content}: required, an array of content blocks, each an object whose {@code type} is
 *       {@code text} (string {@code text}), {@code image} or {@code audio} (Base64 {@code data},
 *       string {@code mimeType}), {@code resource_link} (string {@code uri} and {@code name}) or
 *       {@code resource} (an object {@code resource} with a string {@code uri} and a string {@code
 *       text} or Base64 {@code blob}); optional {@code annotations} and {@code _meta} are objects.
 *   <li>{@code isError}: optional, a boolean.
 *   <li>{@code structuredContent}, {@code _meta}: optional, objects.
 * </ul>
 *
 * Other members are allowed, as the MCP schema allows them. Problems name the member path ({@code
 * result.content[0].text}) and never quote a value.
 */
public final class ToolResultShape {
  private ToolResultShape() {}

  /** {@code null} when {@code result} is a {@code CallToolResult}; else what is wrong. */
  public static String problem(JsonNode result) {
    if (result == null || !result.isObject()) {
      return "result: expected the tool result object the operator established"
          + " (an MCP CallToolResult: {\"content\":[…]})";
    }
    JsonNode content = result.get("content");
    if (content == null || !content.isArray()) {
      return "result.content: " + kind(content) + " (expected: an array of content blocks)";
    }
    for (int i = 0; i < content.size(); i++) {
      String p = block(content.get(i), "result.content[" + i + "]");
      if (p != null) {
        return p;
      }
    }
    JsonNode isError = result.get("isError");
    if (isError != null && !isError.isBoolean()) {
      return "result.isError: " + kind(isError) + " (expected: true or false)";
    }
    for (String member : new String[] {"structuredContent", "_meta"}) {
      JsonNode v = result.get(member);
      if (v != null && !v.isObject()) {
        return "result." + member + ": " + kind(v) + " (expected: an object)";
      }
    }
    return null;
  }

  private static String block(JsonNode b, String at) {
    if (!b.isObject()) {
      return at + ": " + kind(b) + " (expected: a content block object with a \"type\")";
    }
    JsonNode type = b.get("type");
    if (type == null || !type.isTextual()) {
      return at + ".type: " + kind(type) + " (expected: a content type string)";
    }
    String p =
        switch (type.asText()) {
          case "text" -> string(b, at, "text");
          case "image", "audio" -> first(base64(b, at, "data"), string(b, at, "mimeType"));
          case "resource_link" -> first(string(b, at, "uri"), string(b, at, "name"));
          case "resource" -> resource(b.get("resource"), at + ".resource");
          default ->
              at
                  + ".type: not a content type (expected: text, image, audio, resource_link or"
                  + " resource)";
        };
    if (p != null) {
      return p;
    }
    for (String member : new String[] {"annotations", "_meta"}) {
      JsonNode v = b.get(member);
      if (v != null && !v.isObject()) {
        return at + "." + member + ": " + kind(v) + " (expected: an object)";
      }
    }
    return null;
  }

  private static String resource(JsonNode r, String at) {
    if (r == null || !r.isObject()) {
      return at + ": " + kind(r) + " (expected: an object with uri and text or blob)";
    }
    String p = string(r, at, "uri");
    if (p != null) {
      return p;
    }
    boolean text = r.has("text");
    boolean blob = r.has("blob");
    if (text == blob) {
      return at
          + ": "
          + (text ? "both text and blob" : "neither text nor blob")
          + " (expected: one)";
    }
    return text ? string(r, at, "text") : base64(r, at, "blob");
  }

  private static String string(JsonNode o, String at, String member) {
    JsonNode v = o.get(member);
    return v != null && v.isTextual()
        ? null
        : at + "." + member + ": " + kind(v) + " (expected: a string)";
  }

  private static String base64(JsonNode o, String at, String member) {
    String p = string(o, at, member);
    if (p != null) {
      return p;
    }
    try {
      Base64.getDecoder().decode(o.get(member).asText());
      return null;
    } catch (IllegalArgumentException e) {
      return at + "." + member + ": not Base64 (expected: Base64-encoded bytes)";
    }
  }

  private static String first(String a, String b) {
    return a != null ? a : b;
  }

  /** What a value is, never what it holds. */
  static String kind(JsonNode v) {
    return StrictBody.kind(v);
  }
}
