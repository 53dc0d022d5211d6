package dev.tally.sidecar.admin;

import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.RoutingContext;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * The console on the admin port (issue 18): one small static page ({@code GET /console}, {@code GET
 * /console/actions/{id}} — the {@code confirmUrl} of a pending call) with its script and style,
 * served from the jar. The page holds no data and no secret: the person signs in with their own
 * credential, which the script keeps in memory and sends as a bearer token to {@code /v1/actions}
 * (or, for the operator, the admin token to {@code /v1/executions}). A strict Content Security
 * Policy allows only this origin's script, style and API; nothing may frame the page.
 */
final class ConsoleRoutes {
  static final String CSP =
      "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self';"
          + " img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

  private final Buffer html = load("console.html");
  private final Buffer js = load("console.js");
  private final Buffer css = load("console.css");

  void page(RoutingContext ctx) {
    send(ctx, "text/html; charset=utf-8", html);
  }

  void script(RoutingContext ctx) {
    send(ctx, "text/javascript; charset=utf-8", js);
  }

  void style(RoutingContext ctx) {
    send(ctx, "text/css; charset=utf-8", css);
  }

  private static void send(RoutingContext ctx, String type, Buffer body) {
    ctx.response()
        .putHeader("Content-Type", type)
        .putHeader("Cache-Control", "no-store")
        .putHeader("Content-Security-Policy", CSP)
        .putHeader("X-Content-Type-Options", "nosniff")
        .putHeader("X-Frame-Options", "DENY")
        .putHeader("Referrer-Policy", "no-referrer")
        .end(body);
  }

  private static Buffer load(String name) {
    try (InputStream in =
        ConsoleRoutes.class.getResourceAsStream("/dev/tally/sidecar/console/" + name)) {
      if (in == null) {
        throw new IllegalStateException("console resource missing: " + name);
      }
      return Buffer.buffer(in.readAllBytes());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
