package dev.tally.core.config;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * How calls of tools with {@code confirmationRequired} wait for their person (issue 18).
 *
 * @param expiry how long a pending call waits before it expires and is never run
 * @param perTool expiry per tool name, over {@code expiry}
 * @param url the base of every {@code confirmUrl} (the console as the person reaches it), or {@code
 *     null}: the adapter's own admin address
 */
public record ConfirmationConfig(Duration expiry, Map<String, Duration> perTool, String url) {
  public static final Duration DEFAULT_EXPIRY = Duration.ofMinutes(30);
  public static final ConfirmationConfig DEFAULT =
      new ConfirmationConfig(DEFAULT_EXPIRY, Map.of(), null);

  static final List<String> KEYS = List.of("expiry", "tools", "url");

  public ConfirmationConfig {
    Objects.requireNonNull(expiry, "expiry");
    perTool = Map.copyOf(perTool);
  }

  /** How long a pending call of {@code tool} waits. */
  public Duration expiryOf(String tool) {
    return perTool.getOrDefault(tool, expiry);
  }

  /** This configuration with {@code url} as the base of confirm links. */
  public ConfirmationConfig withUrl(String u) {
    return new ConfirmationConfig(expiry, perTool, u);
  }
}
