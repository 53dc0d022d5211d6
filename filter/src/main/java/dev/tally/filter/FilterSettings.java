package dev.tally.filter;

import dev.tally.core.config.ConfigSection;
import dev.tally.core.config.LimitsConfig;
import dev.tally.core.config.TallyConfig;
import java.net.URI;
import java.util.Objects;

/**
 * Frozen settings of the filter itself: the {@code filter} section of the shared Tally
 * configuration file ({@code config/README.md}) plus the core limit it enforces. Validation
 * messages are the shared ones ({@link ConfigSection}): they name the key path, the value and what
 * was expected.
 *
 * @param maxRequestBytes largest accepted POST body, {@code limits.maxRequestBytes} (default {@link
 *     LimitsConfig#DEFAULT_MAX_REQUEST_BYTES}); larger bodies are refused with 413
 * @param maxResponseBytes largest response (or SSE event) the filter reads to find a result, {@code
 *     filter.maxResponseBytes} (default {@value #DEFAULT_MAX_RESPONSE_BYTES})
 * @param framing how the filter frames the answers it writes itself, {@code filter.framing}: {@code
 *     auto} (default), {@code sse} or {@code json}
 * @param target the upstream identity recorded in action records, {@code filter.target} (default
 *     {@value #DEFAULT_TARGET})
 * @param selfUrl the application's own MCP endpoint as the filter reaches it to run a confirmed
 *     call or ask a status tool, {@code filter.selfUrl} (an absolute {@code http}/{@code https}
 *     URL); {@code null} (default): the local address and path of the MCP requests the filter sees
 */
public record FilterSettings(
    int maxRequestBytes, int maxResponseBytes, Framing framing, String target, URI selfUrl) {

  /** How the filter frames the answers it writes itself. */
  public enum Framing {
    /** SSE when the request's {@code Accept} lists {@code text/event-stream}, else JSON. */
    AUTO,
    SSE,
    JSON
  }

  /** The configuration section owned by the filter. */
  public static final String SECTION = "filter";

  public static final int DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;
  public static final String DEFAULT_TARGET = "app";

  /** Settings without a configured {@code selfUrl}. */
  public FilterSettings(int maxRequestBytes, int maxResponseBytes, Framing framing, String target) {
    this(maxRequestBytes, maxResponseBytes, framing, target, null);
  }

  public FilterSettings {
    if (maxRequestBytes <= 0) {
      throw new IllegalArgumentException(
          "limits.maxRequestBytes: " + maxRequestBytes + " (expected: a positive size)");
    }
    if (maxResponseBytes <= 0) {
      throw new IllegalArgumentException(
          "filter.maxResponseBytes: " + maxResponseBytes + " (expected: a positive size)");
    }
    Objects.requireNonNull(framing, "filter.framing");
    if (target == null || target.isBlank()) {
      throw new IllegalArgumentException(
          "filter.target: " + target + " (expected: a non-empty name)");
    }
    if (selfUrl != null
        && (!selfUrl.isAbsolute()
            || !("http".equalsIgnoreCase(selfUrl.getScheme())
                || "https".equalsIgnoreCase(selfUrl.getScheme()))
            || selfUrl.getHost() == null)) {
      throw new IllegalArgumentException(
          "filter.selfUrl: " + selfUrl + " (expected: an absolute http or https URL)");
    }
  }

  /** Every setting at its default. */
  public static FilterSettings defaults() {
    return from(TallyConfig.defaults());
  }

  /**
   * The filter's settings in {@code config}.
   *
   * @throws dev.tally.core.config.ConfigException naming every problem in the {@code filter}
   *     section
   */
  public static FilterSettings from(TallyConfig config) {
    ConfigSection s = config.adapters().section(SECTION);
    s.allowKeys("maxResponseBytes", "framing", "target", "selfUrl");
    long maxResponse =
        s.bytes("maxResponseBytes", (long) DEFAULT_MAX_RESPONSE_BYTES, 1024, Integer.MAX_VALUE);
    Framing framing = s.choice("framing", Framing.AUTO, Framing.class);
    String target =
        s.string(
            "target", DEFAULT_TARGET, v -> !v.isBlank() && v.length() <= 200, "a non-empty name");
    String self =
        s.string("selfUrl", null, FilterSettings::isHttpUrl, "an absolute http or https URL");
    s.throwIfInvalid("configuration");
    return new FilterSettings(
        config.limits().maxRequestBytes(),
        (int) maxResponse,
        framing,
        target,
        self == null ? null : URI.create(self));
  }

  private static boolean isHttpUrl(String v) {
    try {
      URI u = new URI(v);
      return u.isAbsolute()
          && ("http".equalsIgnoreCase(u.getScheme()) || "https".equalsIgnoreCase(u.getScheme()))
          && u.getHost() != null;
    } catch (java.net.URISyntaxException e) {
      return false;
    }
  }

  /** A copy with other body limits. */
  public FilterSettings withLimits(int maxRequest, int maxResponse) {
    return new FilterSettings(maxRequest, maxResponse, framing, target, selfUrl);
  }

  /** A copy with another framing. */
  public FilterSettings withFraming(Framing f) {
    return new FilterSettings(maxRequestBytes, maxResponseBytes, f, target, selfUrl);
  }
}
