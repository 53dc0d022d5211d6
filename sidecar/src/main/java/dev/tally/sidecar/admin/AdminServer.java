package dev.tally.sidecar.admin;

import dev.tally.core.gate.Operator;
import dev.tally.core.store.ExecutionStore;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import java.time.Duration;

/**
 * The admin endpoint (separate port from MCP): {@code /healthz}, {@code /readyz}, {@code /metrics}
 * (Prometheus text) and the execution API {@code /v1/executions…}, on a Vert.x Web {@link
 * io.vertx.ext.web.Router} ({@link AdminRouter}; one handler class per resource). When a token is
 * configured every {@code /v1} request must carry it as a bearer token; without one, reads are open
 * and changes are refused ({@link AdminAuth}). Health, readiness and metrics stay open for probes.
 * State changes accept only {@code application/json} bodies from no origin or the port's own
 * ({@link AdminGuard}, {@link JsonOnly}). Reference: docs/admin-api.md.
 */
public final class AdminServer {
  /** The largest request body read: 4 MiB (a resolve's result). */
  public static final int MAX_BODY = 4 * 1024 * 1024;

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
    return start(vertx, options, store, operator, resolveRetention, probe, null);
  }

  /** Starts the admin endpoint. */
  public static Future<AdminServer> start(
      Vertx vertx,
      AdminOptions options,
      ExecutionStore store,
      Operator operator,
      Duration resolveRetention,
      Probe probe,
      Control control) {
    return vertx
        .createHttpServer(
            new HttpServerOptions()
                .setHost(options.listen().host())
                .setPort(options.listen().port()))
        .requestHandler(
            AdminRouter.create(vertx, options, store, operator, resolveRetention, probe, control))
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
