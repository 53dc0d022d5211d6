package dev.tally.core.mcp;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@code x-mcp-header} parameters of each tool, as learned from {@code tools/list}
 * (thread-safe). A tool that was never listed has none, so only its standard headers are checked.
 */
public final class ToolParamHeaders {
  private final Map<String, Map<String, List<String>>> byTool = new ConcurrentHashMap<>();

  private ToolParamHeaders() {}

  public static ToolParamHeaders create() {
    return new ToolParamHeaders();
  }

  /** Replaces what is known of {@code tool}: lower-cased header name → argument property path. */
  public void put(String tool, Map<String, List<String>> headers) {
    if (headers.isEmpty()) {
      byTool.remove(tool);
    } else {
      byTool.put(tool, Map.copyOf(headers));
    }
  }

  /** The known parameter headers of {@code tool} (empty if none). */
  public Map<String, List<String>> forTool(String tool) {
    return byTool.getOrDefault(tool, Map.of());
  }
}
