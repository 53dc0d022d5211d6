package dev.tally.core.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * What Tally reads from the two notifications it acts on: a client's {@code
 * notifications/cancelled} (which request it cancels) and a server's {@code
 * notifications/tools/list_changed} (the tool catalogue must be read again). Never throws on bad
 * input: a message that is not what it looks like says nothing.
 */
public final class Notifications {
  private static final byte[] LIST_CHANGED =
      McpNames.Methods.TOOLS_LIST_CHANGED.getBytes(StandardCharsets.US_ASCII);

  private static final byte[] TOOLS_LIST_CHANGED =
      ("{\"jsonrpc\":\"2.0\",\"method\":\"" + McpNames.Methods.TOOLS_LIST_CHANGED + "\"}")
          .getBytes(StandardCharsets.UTF_8);

  private Notifications() {}

  /**
   * The {@code notifications/tools/list_changed} message both adapters send on a session's
   * standalone stream when the write switch changes what its caller may see (issue 18).
   */
  public static byte[] toolsListChanged() {
    return TOOLS_LIST_CHANGED.clone();
  }

  /**
   * The {@code params.requestId} of the {@code notifications/cancelled} in {@code len} bytes of
   * {@code b} from {@code off}, when it is a string or an integer (the JSON-RPC id types), else
   * {@code null}.
   */
  public static JsonNode cancelledRequestId(WireJson json, byte[] b, int off, int len) {
    JsonNode msg;
    try {
      msg = json.strict().readTree(b, off, len);
    } catch (IOException | RuntimeException e) {
      return null;
    }
    if (msg == null
        || !McpNames.Methods.CANCELLED.equals(msg.path("method").textValue())
        || msg.has("id")) {
      return null;
    }
    JsonNode id = msg.path("params").path("requestId");
    return id.isTextual() || id.isIntegralNumber() ? id : null;
  }

  /**
   * Whether {@code message} (one JSON-RPC message, e.g. an SSE event's data) is a {@code
   * notifications/tools/list_changed}. A byte search rules out almost every message before anything
   * is parsed.
   */
  public static boolean isToolListChanged(WireJson json, byte[] message) {
    if (message == null || indexOf(message, LIST_CHANGED) < 0) {
      return false;
    }
    try {
      JsonNode msg = json.strict().readTree(message);
      return msg != null
          && McpNames.Methods.TOOLS_LIST_CHANGED.equals(msg.path("method").textValue())
          && !msg.has("id");
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  /**
   * A key naming one JSON-RPC id whatever its JSON spelling ({@code 7} and {@code 7.0} are not ids;
   * a string {@code "7"} is another id than the integer {@code 7}), or {@code null} for an id that
   * is neither a string nor an integer.
   */
  public static String idKey(JsonNode id) {
    if (id == null) {
      return null;
    }
    if (id.isTextual()) {
      return "s:" + id.textValue();
    }
    return id.isIntegralNumber() ? "n:" + id.bigIntegerValue() : null;
  }

  private static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
