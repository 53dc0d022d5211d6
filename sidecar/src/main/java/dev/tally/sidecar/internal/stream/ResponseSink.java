package dev.tally.sidecar.internal.stream;

import dev.tally.sidecar.LimitHits;
import dev.tally.sidecar.internal.context.ProxyContext;
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

  private ResponseSink(HttpServerResponse resp, long maxUndelivered, LimitHits hits) {
    this.resp = resp;
    this.maxUndelivered = maxUndelivered;
    this.hits = hits;
  }

  /** A sink over {@code resp} held to {@code ctx}'s {@code sidecar.maxUndeliveredBytes}. */
  public static ResponseSink of(ProxyContext ctx, HttpServerResponse resp) {
    return new ResponseSink(resp, ctx.options().clients().maxUndeliveredBytes(), ctx.limitHits());
  }

  @Override
  public Future<Void> write(Buffer bytes) {
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
