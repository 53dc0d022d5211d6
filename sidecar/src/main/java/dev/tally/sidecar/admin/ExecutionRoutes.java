package dev.tally.sidecar.admin;

import dev.tally.core.console.ExecutionDesk;
import dev.tally.core.gate.Operator;
import dev.tally.core.store.ExecutionStore;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.RoutingContext;
import java.time.Duration;

/**
 * The Vert.x shell of core's {@link ExecutionDesk}: {@code GET /v1/executions}, {@code GET
 * /v1/executions/{id}}, {@code POST /v1/executions/{id}/resolve|confirm|cancel}. By the time these
 * handlers run, {@link AdminGuard} and {@link AdminAuth} let the request through; {@link #prepare}
 * then has the desk check the id, the action and the media type before a byte of the body is read,
 * and {@link #act} hands it the body. Every rule is the desk's.
 */
final class ExecutionRoutes {
  private final ExecutionDesk desk;

  ExecutionRoutes(ExecutionStore store, Operator operator, Duration retention) {
    this.desk = ExecutionDesk.of(store, operator, retention);
  }

  void list(RoutingContext ctx) {
    AdminReplies.sendWhenDone(ctx, desk.list(ctx.request()::getParam));
  }

  void one(RoutingContext ctx) {
    AdminReplies.sendWhenDone(ctx, desk.one(ctx.pathParam("id")));
  }

  /** 400 for a bad id, 404 for an unknown action, 415 unless the body is declared JSON. */
  void prepare(RoutingContext ctx) {
    AdminReplies.sendOrNext(
        ctx,
        desk.check(
            ctx.pathParam("id"), ctx.pathParam("action"), ctx.request().getHeader("Content-Type")));
  }

  /** Acts once the body has been read (at most {@link AdminServer#MAX_BODY} bytes). */
  void act(RoutingContext ctx) {
    Buffer body = ctx.body().buffer();
    AdminReplies.sendWhenDone(
        ctx,
        desk.act(
            ctx.pathParam("id"),
            ctx.pathParam("action"),
            ctx.request().getHeader("Content-Type"),
            body == null ? null : body.getBytes()));
  }

  static void methodNotAllowed(RoutingContext ctx) {
    AdminReplies.send(ctx, ExecutionDesk.methodNotAllowed());
  }
}
