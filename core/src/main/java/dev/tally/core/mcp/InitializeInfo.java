package dev.tally.core.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;

/**
 * What an {@code initialize} request says about its client, for the sessions journal: {@code
 * params.clientInfo.name}, {@code params.clientInfo.version} and {@code params.protocolVersion},
 * each {@code null} when absent or not a string.
 */
public record InitializeInfo(String clientName, String clientVersion, String protocolVersion) {

  /** Reads {@code len} bytes of {@code b} from {@code off}; never throws on bad input. */
  public static InitializeInfo read(WireJson json, byte[] b, int off, int len) {
    JsonNode params;
    try {
      params = json.strict().readTree(b, off, len).path("params");
    } catch (IOException | RuntimeException e) {
      params = json.strict().missingNode();
    }
    return new InitializeInfo(
        text(params.path("clientInfo").path("name")),
        text(params.path("clientInfo").path("version")),
        text(params.path("protocolVersion")));
  }

  private static String text(JsonNode n) {
    return n.isTextual() ? n.textValue() : null;
  }
}
