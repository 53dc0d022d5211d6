package dev.tally.core.call;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tally.core.mcp.RpcResponseWatcher;
import java.io.IOException;
import java.util.function.Predicate;

/**
 * Takes the tools a caller may not see out of an upstream's answer to its {@code tools/list} (issue
 * 18, write control): the one rule both adapters apply to the bytes they relay. A message that is
 * not that answer, or hides nothing, is returned as it came (the same array).
 */
public final class ListingFilter {
  private static final ObjectMapper MAPPER =
      com.fasterxml.jackson.databind.json.JsonMapper.builder()
          .enable(com.fasterxml.jackson.databind.DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .disable(
              com.fasterxml.jackson.databind.cfg.JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES)
          .build();

  private ListingFilter() {}

  /**
   * {@code message} without the tools {@code shown} refuses, when it answers {@code requestId} with
   * a {@code result.tools} list; else {@code message} itself.
   */
  public static byte[] filter(byte[] message, JsonNode requestId, Predicate<String> shown) {
    if (message == null || message.length == 0) {
      return message;
    }
    JsonNode m;
    try {
      m = MAPPER.readTree(message);
    } catch (IOException | NumberFormatException e) {
      // NumberFormatException: Jackson's refusal of a number it cannot hold exactly (1e99999...)
      return message;
    }
    if (!(m instanceof ObjectNode o)
        || requestId != null && !RpcResponseWatcher.sameId(requestId, o.get("id"))
        || !(o.path("result").path("tools") instanceof ArrayNode tools)) {
      return message;
    }
    ArrayNode kept = MAPPER.createArrayNode();
    for (JsonNode t : tools) {
      JsonNode name = t.get("name");
      if (name == null || !name.isTextual() || shown.test(name.textValue())) {
        kept.add(t);
      }
    }
    if (kept.size() == tools.size()) {
      return message;
    }
    ((ObjectNode) o.get("result")).set("tools", kept);
    try {
      return MAPPER.writeValueAsBytes(o);
    } catch (IOException e) {
      return message;
    }
  }
}
