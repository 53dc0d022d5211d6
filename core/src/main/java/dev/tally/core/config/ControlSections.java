package dev.tally.core.config;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/** Reads the {@code writes} and {@code confirmation} sections (issue 18). */
final class ControlSections {
  private static final Pattern TOOL_NAME = Pattern.compile("[^\\p{Cntrl}]{1,128}");
  private static final Pattern HEADER = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}");
  private static final Pattern SCOPE = Pattern.compile("[\\x21-\\x7e&&[^,\"\\\\]]{1,128}");
  private static final Duration MIN_EXPIRY = Duration.ofSeconds(10);
  private static final Duration MAX_EXPIRY = Duration.ofDays(7);

  private ControlSections() {}

  static WritesConfig writes(ConfigSection s) {
    s.allowKeys(WritesConfig.KEYS);
    boolean enabled = s.bool("enabled", WritesConfig.DEFAULT_ENABLED);
    String header =
        s.string(
            "scopeHeader",
            null,
            h -> HEADER.matcher(h).matches(),
            "an HTTP header name like X-Tally-Scopes");
    String scope =
        s.string(
            "scope",
            WritesConfig.DEFAULT_SCOPE,
            v -> SCOPE.matcher(v).matches(),
            "one scope of 1-128 visible characters, no comma, like mcp:write");
    List<String> never =
        s.strings(
            "neverExposed",
            List.of(),
            t -> TOOL_NAME.matcher(t).matches() && !t.isBlank(),
            "a tool name of 1-128 characters");
    Map<String, Boolean> actors = new LinkedHashMap<>();
    ConfigSection a = s.section("actors");
    if (a.isPresent()) {
      for (String actor : a.keys()) {
        Boolean on = a.bool(actor, null);
        if (on != null) {
          actors.put(actor, on);
        }
      }
    }
    return new WritesConfig(enabled, header, scope, new LinkedHashSet<>(never), actors);
  }

  static ConfirmationConfig confirmation(ConfigSection s) {
    s.allowKeys(ConfirmationConfig.KEYS);
    Duration expiry =
        s.duration("expiry", ConfirmationConfig.DEFAULT_EXPIRY, MIN_EXPIRY, MAX_EXPIRY);
    Map<String, Duration> perTool = new LinkedHashMap<>();
    ConfigSection t = s.section("tools");
    if (t.isPresent()) {
      for (String tool : t.keys()) {
        Duration d = t.duration(tool, null, MIN_EXPIRY, MAX_EXPIRY);
        if (d != null) {
          perTool.put(tool, d);
        }
      }
    }
    String url =
        s.string(
            "url",
            null,
            u -> u.startsWith("http://") || u.startsWith("https://"),
            "an http(s) URL like https://tally.example.com (the console's address)");
    if (url != null && url.endsWith("/")) {
      url = url.substring(0, url.length() - 1);
    }
    return new ConfirmationConfig(
        expiry == null ? ConfirmationConfig.DEFAULT_EXPIRY : expiry, perTool, url);
  }
}
