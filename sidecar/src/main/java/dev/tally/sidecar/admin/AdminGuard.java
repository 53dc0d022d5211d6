package dev.tally.sidecar.admin;

import dev.tally.sidecar.internal.http.Hosts;
import dev.tally.sidecar.internal.http.Origins;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.HostAndPort;
import io.vertx.ext.web.RoutingContext;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;
import java.util.Locale;

/**
 * The admin port's browser defences, checked on every request before anything is routed:
 *
 * <ul>
 *   <li><b>Host</b> (DNS rebinding): on a loopback listener only loopback names and {@code
 *       sidecar.allowedHosts} ({@link Hosts}); else 403 {@code FORBIDDEN_HOST}.
 *   <li><b>Origin</b> on reads: none (operators' tools send none), a loopback origin or the
 *       listener's own origin; else 403 {@code FORBIDDEN_ORIGIN}.
 *   <li><b>Origin</b> on changes (any method but {@code GET}/{@code HEAD}): none, or exactly the
 *       listener's own origin ({@code http://} + the request's {@code Host}); a page on another
 *       port of localhost is another origin and is refused. A {@code Sec-Fetch-Site} other than
 *       {@code same-origin} or {@code none} is refused too.
 * </ul>
 *
 * No {@code Access-Control-Allow-*} header is ever sent: there is no CORS, so a cross-origin page
 * can neither read an answer nor pass a preflight.
 */
final class AdminGuard {
  private final Hosts hosts;
  private final Origins loopbackOrigins = Origins.of(List.of(), true);

  private AdminGuard(Hosts hosts) {
    this.hosts = hosts;
  }

  static AdminGuard of(AdminOptions options) {
    return new AdminGuard(Hosts.forListener(options.listen().host(), options.allowedHosts()));
  }

  /** Route handler: the Host and Origin rules; passes on or answers 403. */
  void handle(RoutingContext ctx) {
    HttpServerRequest req = ctx.request();
    if (!hosts.allows(req)) {
      AdminReplies.error(
          ctx,
          403,
          "FORBIDDEN_HOST",
          "the Host header is not allowed (a loopback listener accepts loopback names and"
              + " sidecar.allowedHosts)");
      return;
    }
    String origin = req.getHeader("Origin");
    boolean change = AdminAuth.accessOf(req) == AdminAuth.Access.CHANGE;
    if (change) {
      if (origin != null && !sameOrigin(origin, req.authority())) {
        AdminReplies.error(
            ctx,
            403,
            "FORBIDDEN_ORIGIN",
            "the Origin header is not this admin port's own origin (state changes accept no"
                + " request from another origin, not even another port of localhost)");
        return;
      }
      String site = req.getHeader("Sec-Fetch-Site");
      if (site != null && !site.equalsIgnoreCase("same-origin") && !site.equalsIgnoreCase("none")) {
        AdminReplies.error(
            ctx,
            403,
            "FORBIDDEN_ORIGIN",
            "Sec-Fetch-Site: "
                + AdminReplies.quote(site)
                + " (state changes accept only same-origin requests)");
        return;
      }
    } else if (!loopbackOrigins.allows(origin) && !sameOrigin(origin, req.authority())) {
      AdminReplies.error(
          ctx,
          403,
          "FORBIDDEN_ORIGIN",
          "the Origin header is not allowed (the admin API accepts no cross-site requests)");
      return;
    }
    ctx.next();
  }

  /**
   * Whether {@code origin} is {@code http://<authority>}: same host (case-insensitive, IPv6 with or
   * without brackets) and port (80 when absent). The admin port speaks plain HTTP only.
   */
  static boolean sameOrigin(String origin, HostAndPort authority) {
    if (authority == null) {
      return false;
    }
    URI u;
    try {
      u = new URI(origin.strip());
    } catch (URISyntaxException e) {
      return false;
    }
    if (!"http".equalsIgnoreCase(u.getScheme())
        || u.getHost() == null
        || u.getRawUserInfo() != null
        || (u.getRawPath() != null && !u.getRawPath().isEmpty())
        || u.getRawQuery() != null) {
      return false;
    }
    int port = u.getPort() < 0 ? 80 : u.getPort();
    int own = authority.port() < 0 ? 80 : authority.port();
    return port == own && bare(u.getHost()).equals(bare(authority.host()));
  }

  private static String bare(String host) {
    String h = host.toLowerCase(Locale.ROOT);
    return h.startsWith("[") && h.endsWith("]") ? h.substring(1, h.length() - 1) : h;
  }
}
