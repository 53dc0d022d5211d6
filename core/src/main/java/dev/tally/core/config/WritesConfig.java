package dev.tally.core.config;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Which callers may use write tools (every tool not {@code read_only}), read at start and changed
 * live only through the admin API (issue 18).
 *
 * @param enabled the operator's write switch at start: off hides and refuses every write tool
 * @param scopeHeader the request header carrying the caller's scopes (space or comma separated), or
 *     {@code null}: every caller may write (the switch still applies)
 * @param scope the scope a caller needs to write when {@code scopeHeader} is set
 * @param neverExposed tools that are never listed and never callable through Tally
 * @param actors per-actor switches at start (actor id to on/off), over the global switch
 */
public record WritesConfig(
    boolean enabled,
    String scopeHeader,
    String scope,
    Set<String> neverExposed,
    Map<String, Boolean> actors) {
  public static final boolean DEFAULT_ENABLED = true;
  public static final String DEFAULT_SCOPE = "mcp:write";
  public static final WritesConfig DEFAULT =
      new WritesConfig(DEFAULT_ENABLED, null, DEFAULT_SCOPE, Set.of(), Map.of());

  public WritesConfig {
    Objects.requireNonNull(scope, "scope");
    neverExposed = Set.copyOf(neverExposed);
    actors = Map.copyOf(actors);
  }

  /** The keys of the {@code writes} section. */
  static final List<String> KEYS =
      List.of("enabled", "scopeHeader", "scope", "neverExposed", "actors");
}
