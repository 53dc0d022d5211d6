package dev.tally.bench.load;

import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The fast upstream of the load benchmark (bench/load/run.sh): a canned MCP server on {@code POST
 * /mcp} that counts the {@code create_ticket} calls it executes; {@code GET /count} returns the
 * count as plain text.
 *
 * <p>Usage: {@code java -cp tally-bench.jar dev.tally.bench.load.CannedUpstream --port P [--loops
 * N] [--native]}. One server instance per event loop shares the port, so {@code --loops 2} really
 * uses two loops.
 */
public final class CannedUpstream extends VerticleBase {
  private static final CharSequence JSON = HttpHeaders.createOptimized("application/json");
  private static final CharSequence TEXT = HttpHeaders.createOptimized("text/plain");

  private final int port;
  private final AtomicLong executed;

  private CannedUpstream(int port, AtomicLong executed) {
    this.port = port;
    this.executed = executed;
  }

  public static void main(String[] args) throws Exception {
    int port = 0;
    int loops = 1;
    boolean nativeTransport = false;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--port" -> port = Integer.parseInt(args[++i]);
        case "--loops" -> loops = Integer.parseInt(args[++i]);
        case "--native" -> nativeTransport = true;
        default -> throw new IllegalArgumentException("unknown argument: " + args[i]);
      }
    }
    if (port <= 0) {
      throw new IllegalArgumentException("--port: a fixed port is required (servers share it)");
    }
    Vertx vertx =
        Vertx.vertx(
            new VertxOptions()
                .setEventLoopPoolSize(loops)
                .setPreferNativeTransport(nativeTransport));
    AtomicLong executed = new AtomicLong();
    int p = port;
    vertx
        .deployVerticle(
            () -> new CannedUpstream(p, executed), new DeploymentOptions().setInstances(loops))
        .toCompletionStage()
        .toCompletableFuture()
        .get(30, TimeUnit.SECONDS);
    System.out.println(
        "canned-upstream: http://127.0.0.1:"
            + port
            + "/mcp loops="
            + loops
            + " native="
            + vertx.isNativeTransportEnabled());
    System.out.flush();
  }

  @Override
  public Future<?> start() {
    return vertx
        .createHttpServer(
            new HttpServerOptions()
                .setHost("127.0.0.1")
                .setPort(port)
                .setTcpNoDelay(true)
                .setCompressionSupported(false))
        .requestHandler(this::handle)
        .listen();
  }

  /** A call's result text of this many bytes ({@code bench/load/mcp.lua}'s payload sizes). */
  static final String RESULT_BYTES = "X-Bench-Result-Bytes";

  /** The result size a request asked for: 0 (the canned text) unless a valid count ≤ 16 MiB. */
  static int resultBytes(String header) {
    if (header == null) {
      return 0;
    }
    try {
      int n = Integer.parseInt(header.trim());
      return n > 0 && n <= (16 << 20) ? n : 0;
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  private void handle(HttpServerRequest req) {
    if (req.method() == HttpMethod.GET && "/count".equals(req.path())) {
      req.response()
          .putHeader(HttpHeaders.CONTENT_TYPE, TEXT)
          .end(Long.toString(executed.get()) + "\n");
      return;
    }
    if (req.method() != HttpMethod.POST || !"/mcp".equals(req.path())) {
      req.response().setStatusCode(404).end();
      return;
    }
    req.body()
        .onSuccess(
            body -> {
              byte[] bytes = body.getBytes();
              CannedAnswers.Kind kind = CannedAnswers.classify(bytes);
              if (kind == CannedAnswers.Kind.NOTIFICATION) {
                req.response().setStatusCode(202).end();
                return;
              }
              if (kind == CannedAnswers.Kind.CREATE_TICKET) {
                executed.incrementAndGet();
              }
              req.response()
                  .putHeader(HttpHeaders.CONTENT_TYPE, JSON)
                  .end(
                      Buffer.buffer(
                          CannedAnswers.answer(
                              bytes, kind, resultBytes(req.getHeader(RESULT_BYTES)))));
            });
  }
}
