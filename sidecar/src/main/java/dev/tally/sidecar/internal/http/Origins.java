package dev.tally.sidecar.internal.http;

import java.net.URI;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The {@code Origin} check against DNS rebinding (MCP transports, "Security Warning"): an absent
 * header passes; a present one must be configured, or a loopback origin when those are allowed.
 */
public final class Origins {
  private static final Set<String> LOOPBACK = Set.of("localhost", "127.0.0.1", "[::1]", "::1");
  private final Set<String> allowed;
  private final boolean any;
  private final boolean loopback;

  private Origins(List<String> allowed, boolean loopback) {
    this.any = allowed.contains("*");
    this.allowed =
        Set.copyOf(allowed.stream().map(o -> strip(o.toLowerCase(Locale.ROOT))).toList());
    this.loopback = loopback;
  }

  public static Origins of(List<String> allowed, boolean loopback) {
    return new Origins(allowed, loopback);
  }

  public boolean allows(String origin) {
    if (origin == null || any) {
      return true;
    }
    String o = strip(origin.trim().toLowerCase(Locale.ROOT));
    if (allowed.contains(o)) {
      return true;
    }
    if (!loopback) {
      return false;
    }
    try {
      URI u = new URI(o);
      String scheme = u.getScheme();
      return ("http".equals(scheme) || "https".equals(scheme))
          && u.getHost() != null
          && LOOPBACK.contains(u.getHost());
    } catch (Exception e) {
      return false;
    }
  }

  private static String strip(String o) {
    return o.endsWith("/") ? o.substring(0, o.length() - 1) : o;
  }
}
