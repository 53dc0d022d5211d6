package dev.tally.core.config;

import dev.tally.core.canonical.ArgumentNormalizer;
import dev.tally.core.mcp.McpNames;
import java.util.Objects;

/**
 * Where an explicit idempotency key is read from (ARCHITECTURE.md §6 step 3).
 *
 * @param argument the top-level {@code tools/call} argument carrying the key (never fingerprinted)
 * @param header the request header carrying the key
 */
public record IdempotencyConfig(String argument, String header) {
  public static final String DEFAULT_ARGUMENT = ArgumentNormalizer.DEFAULT_IDEMPOTENCY_ARGUMENT;
  public static final String DEFAULT_HEADER = McpNames.HeaderNames.IDEMPOTENCY_KEY;
  public static final IdempotencyConfig DEFAULT =
      new IdempotencyConfig(DEFAULT_ARGUMENT, DEFAULT_HEADER);

  public IdempotencyConfig {
    Objects.requireNonNull(argument, "argument");
    Objects.requireNonNull(header, "header");
  }
}
