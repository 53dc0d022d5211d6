package dev.tally.sidecar.internal.proxy;

import dev.tally.sidecar.internal.stream.EventSink;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;

/** A client's SSE response as an {@link EventSink}. */
final class ResponseSink implements EventSink {
  private final HttpServerResponse resp;

  ResponseSink(HttpServerResponse resp) {
    this.resp = resp;
  }

  @Override
  public Future<Void> write(Buffer bytes) {
    if (resp.closed() || resp.ended()) {
      return Future.failedFuture("client gone");
    }
    return resp.write(bytes);
  }

  @Override
  public void end() {
    if (!resp.closed() && !resp.ended()) {
      resp.end();
    }
  }
}
