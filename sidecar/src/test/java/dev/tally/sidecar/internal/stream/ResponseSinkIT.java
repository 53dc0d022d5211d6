package dev.tally.sidecar.internal.stream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.sidecar.LimitHits;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerResponse;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 21 case 3 on a real socket: a client that asked for an SSE answer and stopped reading
 * cannot make the sidecar queue it without end. The sink resets the connection once more than
 * {@code sidecar.maxUndeliveredBytes} were written while the queue was full, and counts the hit.
 */
class ResponseSinkIT {
  private static final long LIMIT = 1 << 20;
  private final Vertx vertx = Vertx.vertx();

  @AfterEach
  void close() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  @Test
  void aClientThatStopsReadingIsResetOnceItsBacklogPassesTheLimit() throws Exception {
    LimitHits hits = new LimitHits();
    AtomicLong written = new AtomicLong();
    CompletableFuture<Void> refused = new CompletableFuture<>();
    Buffer event = Buffer.buffer("data: " + "x".repeat(64 * 1024) + "\n\n");
    HttpServer server =
        vertx
            .createHttpServer()
            .requestHandler(
                req -> {
                  HttpServerResponse resp = req.response().setChunked(true);
                  resp.putHeader("Content-Type", "text/event-stream");
                  ResponseSink sink = ResponseSink.of(resp, LIMIT, hits);
                  // The relay keeps writing whether or not the client reads (bounded here).
                  long timer =
                      vertx.setPeriodic(
                          1,
                          t -> {
                            if (refused.isDone() || written.get() > (512L << 20)) {
                              vertx.cancelTimer(t);
                              return;
                            }
                            sink.write(event).onFailure(e -> refused.complete(null));
                            written.addAndGet(event.length());
                          });
                  resp.closeHandler(v -> vertx.cancelTimer(timer));
                })
            .listen(0, "127.0.0.1")
            .toCompletionStage()
            .toCompletableFuture()
            .get(30, TimeUnit.SECONDS);
    try (Socket s = new Socket()) {
      s.setReceiveBufferSize(4096);
      s.connect(new InetSocketAddress("127.0.0.1", server.actualPort()), 10_000);
      OutputStream out = s.getOutputStream();
      out.write(
          "GET /sse HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n"
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      // ... and never reads.
      refused.get(60, TimeUnit.SECONDS);
    }
    assertThat(hits.count(LimitHits.Port.MCP, LimitHits.Limit.UNDELIVERED_BYTES)).isOne();
    assertThat(written.get())
        .as("bytes handed to the socket before the reset")
        .isLessThan(64L << 20);
  }
}
