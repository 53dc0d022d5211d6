package dev.tally.sidecar.admin;

import dev.tally.core.console.ActionDesk;
import dev.tally.core.console.AdminReply;
import dev.tally.core.execution.Execution;
import dev.tally.core.gate.Confirmations;
import dev.tally.core.mcp.Headers;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;
import java.time.Clock;
import java.util.function.BiFunction;

/**
 * The Vert.x shell of core's {@link ActionDesk} (issue 18): {@code GET /v1/actions}, {@code GET
 * /v1/actions/{id}}, {@code POST /v1/actions/{id}/confirm|cancel}. Every rule is the desk's; this
 * class moves the request's parts in and the {@link AdminReply} out. Confirming runs the call with
 * the sidecar's own upstream client ({@code runner}).
 */
final class ActionRoutes {
  private final ActionDesk desk;
  private final ActionDesk.Runner runner;

  ActionRoutes(
      Confirmations confirmations,
      BiFunction<Confirmations.Execute, String, Future<Execution>> runner,
      dev.tally.core.store.ExecutionStore store,
      Clock clock) {
    this.desk = ActionDesk.of(confirmations, store, clock);
    this.runner = (run, authorization) -> runner.apply(run, authorization).toCompletionStage();
  }

  static Headers headers(HttpServerRequest req) {
    return req::getHeader;
  }

  void list(RoutingContext ctx) {
    AdminReplies.sendWhenDone(
        ctx, desk.list(headers(ctx.request()), ctx.request().getParam("recent") != null));
  }

  void one(RoutingContext ctx) {
    AdminReplies.sendWhenDone(ctx, desk.one(ctx.pathParam("id"), headers(ctx.request())));
  }

  /** Refuses a bad id, action or media type before a byte of the body is read. */
  void prepare(RoutingContext ctx) {
    AdminReplies.sendOrNext(
        ctx,
        desk.check(
            ctx.pathParam("id"), ctx.pathParam("action"), ctx.request().getHeader("Content-Type")));
  }

  void decide(RoutingContext ctx) {
    Buffer body = ctx.body().buffer();
    AdminReplies.sendWhenDone(
        ctx,
        desk.decide(
            ctx.pathParam("id"),
            ctx.pathParam("action"),
            ctx.request().getHeader("Content-Type"),
            body == null ? null : body.getBytes(),
            headers(ctx.request()),
            runner));
  }
}
