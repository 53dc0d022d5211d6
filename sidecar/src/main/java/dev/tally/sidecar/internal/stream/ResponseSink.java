package dev.tally.sidecar.internal.stream;

import dev.tally.sidecar.LimitHits;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;

/**
 * A client's SSE response as an {@link EventSink}. Events are written whether or not the client
 * reads (the relay keeps reading the upstream so the answer is captured), so a client that stopped
 * reading would make its connection queue grow without end: once the bytes written while the queue
 * is full pass {@code sidecar.maxUndeliveredBytes}, the connection is reset. The stream stays in
 * its {@link StreamBuffer} for resumption; nothing stored is lost.
 */
public final class ResponseSink implements EventSink {
  private final HttpServerResponse resp;
  private final long maxUndelivered;
  private final LimitHits hits;
  private long backlog;
  private boolean waiting;

  /** Over the limit once: nothing more is written, and the hit was counted. */
  private boolean cut;

  private ResponseSink(HttpServerResponse resp, long maxUndelivered, LimitHits hits) {
    this.resp = resp;
    this.maxUndelivered = maxUndelivered;
    this.hits = hits;
  }

  /**
   * A sink over {@code resp} held to {@code sidecar.maxUndeliveredBytes}, counted in {@code hits}.
   */
  public static ResponseSink of(HttpServerResponse resp, long maxUndelivered, LimitHits hits) {
    return new ResponseSink(resp, maxUndelivered, hits);
  }

  @Override
  public Future<Void> write(Buffer bytes) {
    if (cut) {
      return Future.failedFuture("client stopped reading");
    }
    if (resp.closed() || resp.ended()) {
      return Future.failedFuture("client gone");
    }
    Future<Void> written = resp.write(bytes);
    if (resp.writeQueueFull()) {
      backlog += bytes.length();
      if (!waiting) {
        waiting = true;
        resp.drainHandler(
            v -> {
              waiting = false;
              backlog = 0;
            });
      }
      if (backlog > maxUndelivered) {
        // The reset may wait behind the queued bytes (Vert.x closes after pending writes); the
        // sink writes nothing more meanwhile, and the idle timer closes a connection whose
        // client still takes nothing (ConnectionGuard).
        cut = true;
        hits.hit(LimitHits.Port.MCP, LimitHits.Limit.UNDELIVERED_BYTES);
        resp.reset();
        return Future.failedFuture("client stopped reading");
      }
    }
    return written;
  }

  @Override
  public void end() {
    if (!resp.closed() && !resp.ended()) {
      resp.end();
    }
  }
}
