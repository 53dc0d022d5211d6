package dev.tally.core.config;

import dev.tally.core.contract.ContractRegistry;
import dev.tally.core.contract.ToolContract;
import java.util.Map;
import java.util.Objects;

/**
 * The tool contracts of the {@code tools:} section, each fully resolved against the {@code default}
 * entry.
 *
 * @param defaults the {@code default} entry: source {@link ToolContract.Source#CONFIGURATION} when
 *     configured, else {@link ToolContract#defaultFor(String)}
 * @param tools the named contracts, all of source {@link ToolContract.Source#CONFIGURATION}
 */
public record ToolsConfig(ToolContract defaults, Map<String, ToolContract> tools) {
  public static final String DEFAULT_ENTRY = "default";
  public static final ToolsConfig DEFAULT =
      new ToolsConfig(ToolContract.defaultFor(DEFAULT_ENTRY), Map.of());

  public ToolsConfig {
    Objects.requireNonNull(defaults, "defaults");
    tools = Map.copyOf(tools);
  }

  /**
   * A new registry of these contracts. Registries learn tool annotations at run time, so each call
   * returns a fresh one: create it once at start and share it.
   */
  public ContractRegistry newRegistry() {
    return ContractRegistry.of(tools, defaults);
  }
}
