package dev.tally.sidecar.internal.proxy;

import dev.tally.sidecar.internal.context.ProxyContext;
import dev.tally.sidecar.internal.upstream.Upstream;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One instance of the MCP listener: an {@link HttpServer} and an {@link Upstream} pool on one event
 * loop. Deployed with one instance per event loop; the instances listen on the same port, Vert.x
 * spreads accepted connections over them, and each sends upstream through its own pool so a request
 * never leaves its loop. Everything else is shared through the {@link ProxyContext} template.
 */
public final class McpListener extends VerticleBase {
  private final ProxyContext template;
  private final int port;
  private final Upstream upstream;
  private final AtomicLong connections = new AtomicLong();
  private volatile HttpServer server;

  private McpListener(ProxyContext template, int port, Upstream upstream) {
    this.template = template;
    this.port = port;
    this.upstream = upstream;
  }

  /**
   * An instance serving {@code template}'s endpoint on {@code port} (a negative port shares one
   * random port among the instances using the same value) and sending upstream through {@code
   * upstream}, which it owns (closes) from now on.
   *
   * <p>The upstream client is created before deployment on purpose: building a Vert.x client takes
   * an event loop from the same round-robin that assigns the instances theirs, and doing it inside
   * {@link #start()} can put two instances on one loop.
   */
  public static McpListener create(ProxyContext template, int port, Upstream upstream) {
    Objects.requireNonNull(template, "template");
    Objects.requireNonNull(upstream, "upstream");
    return new McpListener(template, port, upstream);
  }

  @Override
  public Future<?> start() {
    upstream.keepConnectionsOnThisLoop();
    HttpServerOptions so =
        new HttpServerOptions()
            .setHost(template.options().host())
            .setPort(port)
            .setTcpNoDelay(true)
            .setCompressionSupported(false)
            .setHttp2ClearTextEnabled(template.options().clients().h2c());
    HttpServer s =
        vertx
            .createHttpServer(so)
            .connectionHandler(
                c -> {
                  connections.incrementAndGet();
                  template.guard().accept(c);
                })
            .requestHandler(McpHandler.create(template.withUpstream(upstream)));
    server = s;
    return s.listen().recover(t -> upstream.close().transform(v -> Future.failedFuture(t)));
  }

  @Override
  public Future<?> stop() {
    HttpServer s = server;
    Future<Void> closed = s == null ? Future.succeededFuture() : s.close();
    return closed.transform(ar -> upstream.close());
  }

  /** Stops accepting and lets open requests finish for up to {@code timeoutMs}. */
  public Future<Void> shutdown(long timeoutMs) {
    HttpServer s = server;
    return s == null
        ? Future.succeededFuture()
        : s.shutdown(Math.max(1, timeoutMs), TimeUnit.MILLISECONDS);
  }

  /** The bound port, once listening. */
  public int port() {
    return server.actualPort();
  }

  /** Client connections this instance has accepted. */
  public long connections() {
    return connections.get();
  }
}
