package dev.tally.sidecar.admin;

import dev.tally.core.console.ConsolePage;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.RoutingContext;

/**
 * The console on the admin port (issue 18): core's {@link ConsolePage} ({@code GET /console},
 * {@code GET /console/actions/{id}} — the {@code confirmUrl} of a pending call — with its script
 * and style). The page holds no data and no secret: the person signs in with their own credential,
 * which the script keeps in memory and sends as a bearer token to {@code /v1/actions} (or, for the
 * operator, the admin token to {@code /v1/executions}). A strict Content Security Policy allows
 * only this origin's script, style and API; nothing may frame the page.
 */
final class ConsoleRoutes {
  static final String CSP = ConsolePage.CSP;

  private final ConsolePage.Asset html = ConsolePage.page("");

  void page(RoutingContext ctx) {
    send(ctx, html);
  }

  void script(RoutingContext ctx) {
    send(ctx, ConsolePage.script());
  }

  void style(RoutingContext ctx) {
    send(ctx, ConsolePage.style());
  }

  private static void send(RoutingContext ctx, ConsolePage.Asset a) {
    ConsolePage.HEADERS.forEach(ctx.response()::putHeader);
    ctx.response().putHeader("Content-Type", a.contentType()).end(Buffer.buffer(a.bytes()));
  }
}
