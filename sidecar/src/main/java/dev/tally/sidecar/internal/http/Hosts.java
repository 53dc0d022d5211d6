package dev.tally.sidecar.internal.http;

import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.HostAndPort;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The {@code Host} check against DNS rebinding, for a listener bound to loopback. A web page whose
 * name an attacker re-points at 127.0.0.1 reaches a loopback port with its own name in {@code
 * Host}; the MCP SDKs' own servers refuse such requests, and the sidecar, which rewrites {@code
 * Host} to the upstream's address, must refuse them itself or the upstream's check never fires.
 *
 * <p>Rules: {@code *} in the configured names allows any host. Otherwise the check is on when the
 * listener is bound to a loopback address or names were configured, and then a request passes when
 * its host (port ignored, case-insensitive, a trailing dot dropped, IPv6 with or without brackets)
 * is {@code localhost}, {@code 127.0.0.1}, {@code ::1} or the bound address (loopback listeners
 * only), or one of the configured names. A request without a {@code Host} fails a check that is on.
 * A listener bound beyond loopback with no names configured checks nothing: it is reached by names
 * the sidecar cannot know (pod IPs, service names).
 */
public final class Hosts {
  private static final Set<String> LOOPBACK_NAMES = Set.of("localhost", "127.0.0.1", "::1");
  private final boolean on;
  private final Set<String> allowed;

  private Hosts(boolean on, Set<String> allowed) {
    this.on = on;
    this.allowed = allowed;
  }

  /** The check for a listener bound to {@code bindHost} with the configured {@code names}. */
  public static Hosts forListener(String bindHost, List<String> names) {
    if (names.contains("*")) {
      return new Hosts(false, Set.of());
    }
    Set<String> allowed = new HashSet<>();
    for (String n : names) {
      allowed.add(normalize(n));
    }
    boolean loopback = isLoopback(bindHost);
    if (loopback) {
      allowed.addAll(LOOPBACK_NAMES);
      allowed.add(normalize(bindHost));
    }
    return new Hosts(loopback || !names.isEmpty(), Set.copyOf(allowed));
  }

  /** Whether the check refuses anything at all. */
  public boolean isOn() {
    return on;
  }

  /**
   * Whether a request may pass, by its authority: the {@code Host} header in HTTP/1.x, {@code
   * :authority} in HTTP/2 (where there may be no {@code Host} header at all).
   */
  public boolean allows(HttpServerRequest req) {
    if (!on) {
      return true;
    }
    HostAndPort a = req.authority();
    return a != null && allowsHost(a.host());
  }

  /** Whether a request with this {@code Host} header value (null: none) may pass. */
  public boolean allowsHost(String hostHeader) {
    if (!on) {
      return true;
    }
    if (hostHeader == null) {
      return false;
    }
    return allowed.contains(normalize(withoutPort(hostHeader.strip())));
  }

  /**
   * Whether {@code name} may be configured: {@code *}, or a host name or address literal without
   * scheme, path or port.
   */
  public static boolean isValidName(String name) {
    return name != null
        && !name.isBlank()
        && name.indexOf('/') < 0
        && name.indexOf(' ') < 0
        && !name.contains("]:")
        && (name.indexOf(':') < 0 || name.indexOf(':') != name.lastIndexOf(':'));
  }

  /** Whether {@code host} (a name or an address literal) is a loopback address. */
  static boolean isLoopback(String host) {
    String h = normalize(host);
    return h.equals("localhost") || h.equals("::1") || h.startsWith("127.");
  }

  /** The host of a {@code Host} value: {@code [v6]:port}, {@code name:port} or without a port. */
  static String withoutPort(String value) {
    if (value.startsWith("[")) {
      int close = value.indexOf(']');
      return close < 0 ? value : value.substring(0, close + 1);
    }
    int colon = value.indexOf(':');
    if (colon >= 0 && value.indexOf(':', colon + 1) < 0) {
      return value.substring(0, colon);
    }
    return value; // no port, or a bare IPv6 literal
  }

  /** Lower case, no brackets around an IPv6 literal, no trailing dot. */
  static String normalize(String host) {
    String h = host.strip().toLowerCase(Locale.ROOT);
    if (h.startsWith("[") && h.endsWith("]")) {
      h = h.substring(1, h.length() - 1);
    }
    if (h.endsWith(".")) {
      h = h.substring(0, h.length() - 1);
    }
    return h;
  }
}
