package dev.tally.sidecar.internal.http;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;

/**
 * Closes the connection of a request answered before its body was read (413), but only once the
 * client has finished sending the body, read and dropped here: closing a socket with unread bytes
 * makes the kernel answer with a reset, which can destroy the answer before the client reads it and
 * fails the client's further writes (what nginx's {@code lingering_close} avoids). Used by the MCP
 * port and the admin port. Bounded: the connection closes anyway after {@value #MAX_MILLIS} ms or
 * {@value #MAX_BYTES} dropped bytes.
 */
public final class Lingering {
  public static final long MAX_MILLIS = 5_000;
  public static final long MAX_BYTES = 16L << 20;

  private Lingering() {}

  /**
   * Drops what is left of {@code req}'s body, then, once {@code answered} completed too, closes its
   * connection; event loop only.
   */
  public static void drainThenClose(HttpServerRequest req, Future<?> answered) {
    Vertx vertx = Vertx.currentContext().owner();
    long[] dropped = {0};
    boolean[] closed = {false};
    Runnable close =
        () -> {
          if (!closed[0]) {
            closed[0] = true;
            if (req.version() == HttpVersion.HTTP_2) {
              // One stream of a shared connection: stop its upload (RFC 9113 §8.1), keep the rest.
              answered.onComplete(v -> req.response().reset(0));
            } else {
              answered.onComplete(v -> req.connection().close());
            }
          }
        };
    long timer = vertx.setTimer(MAX_MILLIS, t -> close.run());
    Runnable closeNow =
        () -> {
          vertx.cancelTimer(timer);
          close.run();
        };
    if (req.isEnded()) {
      closeNow.run();
      return;
    }
    req.handler(
        chunk -> {
          dropped[0] += chunk.length();
          if (dropped[0] > MAX_BYTES) {
            closeNow.run();
          }
        });
    req.endHandler(v -> closeNow.run());
    req.exceptionHandler(t -> closeNow.run());
  }
}
