package dev.tally.sidecar.it;

import dev.tally.sidecar.Sidecar;
import dev.tally.sidecar.SidecarOptions;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import java.net.URI;
import java.time.Duration;
import java.time.InstantSource;
import java.util.concurrent.TimeUnit;

/**
 * A Vert.x HTTP server on a loopback port (0, read back) that answers every request with a test's
 * script, for the cases no SDK server can be made to produce: streams that close mid-call, fall
 * silent, or break.
 */
final class ScriptedUpstream {
  private ScriptedUpstream() {}

  /** Starts the script; returns its MCP endpoint URL. */
  static URI start(Vertx vertx, Handler<HttpServerRequest> script) throws Exception {
    return start(vertx, script, c -> {});
  }

  /** As {@link #start(Vertx, Handler)}, telling {@code connections} of every connection. */
  static URI start(
      Vertx vertx, Handler<HttpServerRequest> script, Handler<HttpConnection> connections)
      throws Exception {
    HttpServer server =
        vertx
            .createHttpServer()
            .connectionHandler(connections)
            .requestHandler(script)
            .listen(0, "127.0.0.1")
            .toCompletionStage()
            .toCompletableFuture()
            .get(10, TimeUnit.SECONDS);
    return URI.create("http://127.0.0.1:" + server.actualPort() + "/mcp");
  }

  /**
   * A sidecar on port 0 in front of {@code upstream}, with {@code upstream.timeout} set, a {@link
   * FakeGate} (the scripted requests pass without the gate) and {@code clock}.
   */
  static Sidecar sidecar(Vertx vertx, URI upstream, Duration timeout, InstantSource clock)
      throws Exception {
    SidecarOptions options =
        SidecarOptions.builder(upstream).port(0).upstreamTimeout(timeout).build();
    return Sidecar.start(vertx, options, new FakeGate(), clock)
        .toCompletionStage()
        .toCompletableFuture()
        .get(10, TimeUnit.SECONDS);
  }
}
