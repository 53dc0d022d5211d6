package dev.tally.sidecar;

import dev.tally.core.gate.Gate;
import dev.tally.sidecar.internal.proxy.Admission;
import dev.tally.sidecar.internal.proxy.McpHandler;
import dev.tally.sidecar.internal.proxy.Proxy;
import dev.tally.sidecar.internal.proxy.Upstream;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import java.time.Clock;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * A running MCP reverse proxy in front of one upstream MCP endpoint, with the {@link Gate} deciding
 * every {@code tools/call} (ARCHITECTURE.md §7). Non-blocking: everything runs on Vert.x event
 * loops. Start with {@link #start(Vertx, SidecarOptions, Gate)}; stop with {@link #drain(Duration)}
 * or {@link #close()}.
 */
public final class Sidecar {
  private final Vertx vertx;
  private final HttpServer server;
  private final Proxy proxy;
  private final Upstream upstream;
  private final long sweepTimer;

  private Sidecar(Vertx vertx, HttpServer server, Proxy proxy, Upstream upstream, long sweepTimer) {
    this.vertx = vertx;
    this.server = server;
    this.proxy = proxy;
    this.upstream = upstream;
    this.sweepTimer = sweepTimer;
  }

  /** Starts a sidecar on {@code vertx}; the future completes once it is listening. */
  public static Future<Sidecar> start(Vertx vertx, SidecarOptions options, Gate gate) {
    Objects.requireNonNull(gate, "gate");
    return start(vertx, options, Admission.of(gate), Clock.systemUTC());
  }

  /**
   * Starts a sidecar over any {@link Admission} (tests script decisions with it) and {@code clock}
   * (stream ages).
   */
  public static Future<Sidecar> start(
      Vertx vertx, SidecarOptions options, Admission admission, InstantSource clock) {
    Objects.requireNonNull(vertx, "vertx");
    Objects.requireNonNull(options, "options");
    Objects.requireNonNull(admission, "admission");
    Upstream upstream = Upstream.create(vertx, options);
    Proxy proxy = Proxy.create(options, admission, upstream, clock);
    HttpServerOptions so =
        new HttpServerOptions()
            .setHost(options.host())
            .setPort(options.port())
            .setTcpNoDelay(true)
            .setCompressionSupported(false);
    HttpServer server = vertx.createHttpServer(so).requestHandler(McpHandler.create(proxy));
    long sweepEvery = Math.max(1000, Math.min(5000, options.streamMaxAge().toMillis() / 4));
    return server
        .listen()
        .map(
            s -> {
              long timer = vertx.setPeriodic(sweepEvery, t -> proxy.streams().sweep());
              return new Sidecar(vertx, s, proxy, upstream, timer);
            })
        .recover(t -> upstream.close().transform(v -> Future.failedFuture(t)));
  }

  /** The port the MCP endpoint listens on (the bound one when configured as 0). */
  public int port() {
    return server.actualPort();
  }

  /** HTTP requests being handled right now (the admin API and drain read this). */
  public int inFlight() {
    return proxy.active();
  }

  /** Executions the gate is driving right now. */
  public int executionsInFlight() {
    return proxy.admission().inFlight();
  }

  /** Relayed SSE streams currently kept for resumption. */
  public int streams() {
    return proxy.streams().size();
  }

  /**
   * Stops taking requests (new ones get 503 {@code SHUTTING_DOWN}), lets running ones finish for up
   * to {@code timeout}, then closes.
   */
  public Future<Void> drain(Duration timeout) {
    proxy.startDraining();
    return server
        .shutdown(Math.max(1, timeout.toMillis()), TimeUnit.MILLISECONDS)
        .transform(ar -> close());
  }

  /** Closes the listener, open connections and the upstream pool now. */
  public Future<Void> close() {
    proxy.startDraining();
    vertx.cancelTimer(sweepTimer);
    return server.close().transform(ar -> upstream.close());
  }
}
