package dev.tally.sidecar.admin;

import dev.tally.core.gate.Operator;
import dev.tally.core.store.ExecutionStore;
import dev.tally.sidecar.ClientLimits;
import dev.tally.sidecar.LimitHits;
import dev.tally.sidecar.internal.http.ConnectionGuard;
import dev.tally.sidecar.internal.http.Framing;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The admin endpoint (separate port from MCP): {@code /healthz}, {@code /readyz}, {@code /metrics}
 * (Prometheus text) and the execution API {@code /v1/executions…}, on a Vert.x Web {@link
 * io.vertx.ext.web.Router} ({@link AdminRouter}; one handler class per resource). When a token is
 * configured every {@code /v1} request must carry it as a bearer token; without one, reads are open
 * and changes are refused ({@link AdminAuth}). Health, readiness and metrics stay open for probes.
 * State changes accept only {@code application/json} bodies from no origin or the port's own
 * ({@link AdminGuard}, {@link dev.tally.core.console.JsonOnly}). Reference: docs/admin-api.md.
 */
public final class AdminServer {
  /** The largest request body read: 4 MiB (a resolve's result). */
  public static final int MAX_BODY = dev.tally.core.console.StrictBody.MAX_BODY;

  private final HttpServer server;

  private AdminServer(HttpServer server) {
    this.server = server;
  }

  /** What the admin endpoint reads from the running process. */
  public interface Probe {
    /** {@code null} when ready, else why not (one short phrase). */
    String notReadyReason();

    /** Prometheus text exposition of the current metrics. */
    String metrics();
  }

  /**
   * What the admin port needs for people's own actions and the write switch (issue 18): the gate's
   * confirmations and switch, how a confirmed call is run (the execution and the confirming
   * request's {@code Authorization}), and the clock of time left.
   */
  public record Control(
      dev.tally.core.gate.Confirmations confirmations,
      dev.tally.core.gate.WriteSwitch writeSwitch,
      java.util.function.BiFunction<
              dev.tally.core.gate.Confirmations.Execute,
              String,
              Future<dev.tally.core.execution.Execution>>
          runner,
      java.time.Clock clock) {}

  /** Starts the admin endpoint without people's actions or the write switch. */
  public static Future<AdminServer> start(
      Vertx vertx,
      AdminOptions options,
      ExecutionStore store,
      Operator operator,
      Duration resolveRetention,
      Probe probe) {
    return start(
        vertx,
        options,
        store,
        operator,
        resolveRetention,
        probe,
        null,
        ClientLimits.DEFAULT,
        new LimitHits());
  }

  /**
   * Starts the admin endpoint with the console's {@code control} (may be null), {@code limits}
   * (connection caps, header and idle timeouts, HTTP/2 switch) counted in {@code hits}; requests
   * framed against RFC 9112 get 400 and close.
   */
  public static Future<AdminServer> start(
      Vertx vertx,
      AdminOptions options,
      ExecutionStore store,
      Operator operator,
      Duration resolveRetention,
      Probe probe,
      Control control,
      ClientLimits limits,
      LimitHits hits) {
    ConnectionGuard guard = ConnectionGuard.create(limits, hits, LimitHits.Port.ADMIN);
    Handler<HttpServerRequest> router =
        AdminRouter.create(vertx, options, store, operator, resolveRetention, probe, control);
    return vertx
        .createHttpServer(
            new HttpServerOptions()
                .setHost(options.listen().host())
                .setPort(options.listen().port())
                .setHttp2ClearTextEnabled(limits.h2c())
                // Admin answers are short: no read or write for this long is an idle connection.
                .setIdleTimeout((int) Math.max(1, limits.idleTimeout().toSeconds()))
                .setIdleTimeoutUnit(TimeUnit.SECONDS))
        .connectionHandler(guard::accept)
        .requestHandler(
            req -> {
              if (guard.started(req.connection()) == null) {
                return;
              }
              String framing = Framing.problem(req);
              if (framing != null) {
                hits.hit(LimitHits.Port.ADMIN, LimitHits.Limit.FRAMING);
                req.response()
                    .setStatusCode(400)
                    .putHeader("Connection", "close")
                    .putHeader("Content-Type", "application/json")
                    .end(
                        "{\"error\":{\"code\":\"INVALID_REQUEST\",\"message\":\"request framing: "
                            + framing.replace("\"", "'")
                            + "\"}}")
                    .onComplete(v -> req.connection().close());
                return;
              }
              if (Framing.closeAfter(req)) {
                guard.closeAfterThis(req.connection());
                req.response().putHeader("Connection", "close");
                req.response().endHandler(v -> req.connection().close());
              }
              router.handle(req);
            })
        .listen()
        .map(AdminServer::new);
  }

  public int port() {
    return server.actualPort();
  }

  public Future<Void> close() {
    return server.close();
  }

  @Override
  public String toString() {
    return "AdminServer[" + server.actualPort() + "]";
  }
}
