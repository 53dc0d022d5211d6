package dev.tally.core.config;

import dev.tally.core.gate.GateOptions;
import java.util.Objects;

/**
 * Where an explicit intent scope (a run id) is read from (ARCHITECTURE.md §6 step 1).
 *
 * @param header the request header carrying the scope
 */
public record IntentScopeConfig(String header) {
  public static final String DEFAULT_HEADER = GateOptions.DEFAULT_INTENT_SCOPE_HEADER;
  public static final IntentScopeConfig DEFAULT = new IntentScopeConfig(DEFAULT_HEADER);

  public IntentScopeConfig {
    Objects.requireNonNull(header, "header");
  }
}
