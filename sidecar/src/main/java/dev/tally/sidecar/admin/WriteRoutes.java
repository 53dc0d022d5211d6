package dev.tally.sidecar.admin;

import dev.tally.core.console.WriteDesk;
import dev.tally.core.gate.Confirmations;
import dev.tally.core.gate.WriteSwitch;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.RoutingContext;

/**
 * The Vert.x shell of core's {@link WriteDesk} (issue 18; admin token): {@code GET|POST /v1/writes}
 * and {@code POST /v1/actors/{actor}/revoke|restore}.
 */
final class WriteRoutes {
  private final WriteDesk desk;

  WriteRoutes(WriteSwitch writeSwitch, Confirmations confirmations) {
    this.desk = WriteDesk.of(writeSwitch, confirmations);
  }

  void show(RoutingContext ctx) {
    AdminReplies.send(ctx, desk.show());
  }

  void change(RoutingContext ctx) {
    Buffer body = ctx.body().buffer();
    AdminReplies.send(
        ctx,
        desk.change(
            ctx.request().getHeader("Content-Type"), body == null ? null : body.getBytes()));
  }

  void actor(RoutingContext ctx) {
    AdminReplies.sendWhenDone(ctx, desk.actor(ctx.pathParam("actor"), ctx.pathParam("action")));
  }
}
