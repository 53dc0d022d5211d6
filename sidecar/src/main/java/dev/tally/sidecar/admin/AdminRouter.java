package dev.tally.sidecar.admin;

import dev.tally.core.gate.Operator;
import dev.tally.core.store.ExecutionStore;
import dev.tally.sidecar.internal.http.Framing;
import dev.tally.sidecar.internal.http.Lingering;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.time.Duration;
import java.util.Set;

/**
 * The admin port's routes (docs/admin-api.md), in the order they apply:
 *
 * <ol>
 *   <li>every request: {@link AdminGuard} (Host, Origin);
 *   <li>{@code GET /healthz}, {@code /readyz}, {@code /metrics}: {@link ProbeHandlers}, open;
 *   <li>{@code /v1/executions…}: {@link AdminAuth} (token; changes always need it), then {@link
 *       ExecutionRoutes} (core's {@link dev.tally.core.console.ExecutionDesk}) with a {@link
 *       BodyHandler} bounded to {@link AdminServer#MAX_BODY} between the action's checks and its
 *       body;
 *   <li>anything else under {@code /v1/executions}: 405; elsewhere: 404; a failure: {@link
 *       #failure}.
 * </ol>
 */
final class AdminRouter {
  private static final String EXECUTIONS = "/v1/executions";
  private static final String ACTIONS = "/v1/actions";
  private static final String WRITES = "/v1/writes";
  private static final String ACTORS = "/v1/actors";
  private static final Set<String> PROBES = Set.of("/healthz", "/readyz", "/metrics");

  private AdminRouter() {}

  static Router create(
      Vertx vertx,
      AdminOptions options,
      ExecutionStore store,
      Operator operator,
      Duration retention,
      AdminServer.Probe probe,
      AdminServer.Control control) {
    AdminGuard guard = AdminGuard.of(options);
    AdminAuth auth = AdminAuth.of(options);
    ProbeHandlers probes = new ProbeHandlers(probe);
    ExecutionRoutes executions = new ExecutionRoutes(store, operator, retention);

    Router r = Router.router(vertx);
    r.route().handler(guard::handle).failureHandler(AdminRouter::failure);
    r.get("/healthz").handler(probes::health);
    r.get("/readyz").handler(probes::ready);
    r.get("/metrics").handler(probes::metrics);
    r.route(EXECUTIONS + "/*").handler(ctx -> authorize(ctx, auth));
    r.get(EXECUTIONS).handler(executions::list);
    r.get(EXECUTIONS + "/:id").handler(executions::one);
    // Two routes: Vert.x Web runs a route's body handler before its other handlers, and the id,
    // action and media type must be checked before a byte of the body is read.
    r.post(EXECUTIONS + "/:id/:action").handler(executions::prepare);
    r.post(EXECUTIONS + "/:id/:action")
        .handler(BodyHandler.create(false).setBodyLimit(AdminServer.MAX_BODY))
        .handler(executions::act);
    if (control != null) {
      ConsoleRoutes console = new ConsoleRoutes();
      r.get("/console").handler(console::page);
      r.get("/console/actions/:id").handler(console::page);
      r.get("/console/console.js").handler(console::script);
      r.get("/console/console.css").handler(console::style);
      ActionRoutes own =
          new ActionRoutes(control.confirmations(), control.runner(), store, control.clock());
      r.get(ACTIONS).handler(own::list);
      r.get(ACTIONS + "/:id").handler(own::one);
      r.post(ACTIONS + "/:id/:action").handler(own::prepare);
      r.post(ACTIONS + "/:id/:action")
          .handler(BodyHandler.create(false).setBodyLimit(AdminServer.MAX_BODY))
          .handler(own::decide);
      WriteRoutes writes = new WriteRoutes(control.writeSwitch(), control.confirmations());
      r.route(WRITES).handler(ctx -> authorize(ctx, auth));
      r.route(ACTORS + "/*").handler(ctx -> authorize(ctx, auth));
      r.get(WRITES).handler(writes::show);
      r.post(WRITES)
          .handler(BodyHandler.create(false).setBodyLimit(AdminServer.MAX_BODY))
          .handler(writes::change);
      r.post(ACTORS + "/:actor/:action").handler(writes::actor);
    }
    r.route(EXECUTIONS + "/*").handler(ExecutionRoutes::methodNotAllowed);
    r.route().handler(AdminRouter::noSuchEndpoint);
    return r;
  }

  private static void noSuchEndpoint(RoutingContext ctx) {
    String path = ctx.request().path();
    if (PROBES.contains(path)) {
      AdminReplies.error(ctx, 405, "METHOD_NOT_ALLOWED", "use GET " + path);
    } else {
      AdminReplies.error(ctx, 404, "NOT_FOUND", "no such endpoint: " + AdminReplies.quote(path));
    }
  }

  private static void authorize(RoutingContext ctx, AdminAuth auth) {
    AdminAuth.Decision d = auth.decide(ctx.request(), AdminAuth.accessOf(ctx.request()));
    if (d instanceof AdminAuth.Refused refused) {
      if (refused.challenge()) {
        ctx.response().putHeader("WWW-Authenticate", "Bearer");
      }
      AdminReplies.error(ctx, refused.status(), refused.code(), refused.message());
      return;
    }
    ctx.next();
  }

  /**
   * Failures: 413 from the body limit (the connection closes once the client finished sending,
   * {@link Lingering}, so it reads the answer instead of a reset), another 4xx for a request the
   * router refuses ({@code INVALID_REQUEST}, e.g. HTTP/1.1 without {@code Host}), else 500 naming
   * the exception class only.
   */
  static void failure(RoutingContext ctx) {
    HttpServerRequest req = ctx.request();
    int status = ctx.statusCode();
    if (status == 413) {
      Framing.announceClose(req);
      Future<Void> written =
          AdminReplies.error(
              ctx, 413, "PAYLOAD_TOO_LARGE", "body over " + AdminServer.MAX_BODY + " bytes");
      Lingering.drainThenClose(req, written);
      req.resume();
    } else if (status >= 400 && status < 500) {
      AdminReplies.error(
          ctx, status, "INVALID_REQUEST", "malformed request (HTTP status " + status + ")");
    } else {
      Throwable t = ctx.failure();
      AdminReplies.error(
          ctx,
          500,
          "INTERNAL",
          "admin request failed: "
              + (t == null ? "status " + status : t.getClass().getSimpleName()));
    }
  }
}
