package dev.tally.sidecar.internal.stream;

import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;

/** A client's SSE response as an {@link EventSink}. */
public final class ResponseSink implements EventSink {
  private final HttpServerResponse resp;

  public ResponseSink(HttpServerResponse resp) {
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
