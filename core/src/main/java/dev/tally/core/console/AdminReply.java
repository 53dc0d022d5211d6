package dev.tally.core.console;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.Map;

/**
 * One answer of the admin API (docs/admin-api.md) as a value: an HTTP status, a JSON body and any
 * extra response headers. Every error body is {@code {"error":{"code":"…","message":"…"}}};
 * messages quote at most {@value #MAX_QUOTED} characters of anything the client sent ({@link
 * #quote}). The adapters' admin shells (the sidecar's Vert.x routes, the filter's servlet) write it
 * as it is.
 */
public record AdminReply(int status, ObjectNode body, Map<String, String> headers) {
  /** Most characters of a client's input quoted in a message. */
  public static final int MAX_QUOTED = 40;

  private static final ObjectMapper JSON = new ObjectMapper();

  public AdminReply {
    headers = Map.copyOf(headers);
  }

  /** {@code body} with {@code status} and no extra header. */
  public static AdminReply json(int status, ObjectNode body) {
    return new AdminReply(status, body, Map.of());
  }

  /** A coded error. */
  public static AdminReply error(int status, String code, String message) {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    ObjectNode e = o.putObject("error");
    e.put("code", code);
    e.put("message", message);
    return json(status, o);
  }

  /** The same reply with the response header {@code name: value} too. */
  public AdminReply withHeader(String name, String value) {
    java.util.HashMap<String, String> h = new java.util.HashMap<>(headers);
    h.put(name, value);
    return new AdminReply(status, body, h);
  }

  /** The body's bytes (UTF-8 JSON). */
  public byte[] bytes() {
    try {
      return JSON.writeValueAsBytes(body);
    } catch (IOException e) {
      throw new IllegalStateException("a JSON tree is always serializable", e);
    }
  }

  /** {@code s} in quotes, cut to {@value #MAX_QUOTED} characters, non-printables replaced. */
  public static String quote(String s) {
    String cut = s.length() > MAX_QUOTED ? s.substring(0, MAX_QUOTED) + "…" : s;
    return '"' + cut.replaceAll("[^\\x20-\\x7e…]", "?") + '"';
  }

  /** What the store's failure is answered with. */
  public static AdminReply storeDown() {
    return error(503, "STORE_UNAVAILABLE", "the store cannot record this now; retry");
  }
}
