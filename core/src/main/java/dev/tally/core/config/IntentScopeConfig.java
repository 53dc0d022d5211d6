package dev.tally.core.config;

import dev.tally.core.mcp.McpNames;
import java.util.Objects;

/**
 * Where an explicit intent scope (a run id) is read from (ARCHITECTURE.md §6 step 1).
 *
 * @param header the request header carrying the scope
 */
public record IntentScopeConfig(String header) {
  public static final String DEFAULT_HEADER = McpNames.HeaderNames.INTENT_SCOPE;
  public static final IntentScopeConfig DEFAULT = new IntentScopeConfig(DEFAULT_HEADER);

  public IntentScopeConfig {
    Objects.requireNonNull(header, "header");
  }
}
