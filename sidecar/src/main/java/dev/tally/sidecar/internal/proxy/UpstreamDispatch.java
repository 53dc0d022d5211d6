package dev.tally.sidecar.internal.proxy;

import dev.tally.core.gate.InFlight;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;

/**
 * Sends one dispatched {@code tools/call} upstream, for a single call and for a call inside a batch
 * alike: the client's headers plus {@code Idempotency-Key: <execution id>} and a child {@code
 * traceparent}, the body carrying the execution id, and the {@code upstream.timeout} timer. What
 * went wrong is recorded on the execution here; the caller only answers its client.
 */
final class UpstreamDispatch {
  /** How the attempt ended, for the caller's answer. */
  interface Outcome {
    /** No connection: nothing was sent, and the execution is already failed before effect. */
    void unreachable();

    /** The request broke after it may have reached the upstream; recorded as unknown. */
    void brokenAfterSend();

    /** No answer within {@code upstream.timeout}; recorded as unknown, the request is reset. */
    void timedOut();

    /**
     * The upstream answered. {@code timer} is the running timeout: cancel it once the answer is
     * settled.
     */
    void answered(HttpClientRequest up, HttpClientResponse resp, long timer);

    /** The request is being sent upstream; {@code up} may be reset to cancel it. */
    default void sending(HttpClientRequest up) {}
  }

  private UpstreamDispatch() {}

  static void send(
      Proxy proxy,
      Context context,
      HttpServerRequest req,
      HttpMethod method,
      InFlight inFlight,
      DispatchTap tap,
      Buffer body,
      Outcome outcome) {
    Future<HttpClientRequest> opened;
    try {
      opened = proxy.upstream.open(method, req.query(), req.headers(), 0);
    } catch (RuntimeException e) {
      // Nothing was sent: an execution must never stay dispatched because of a local bug here.
      opened = Future.failedFuture(e);
    }
    opened.onComplete(
        ar -> {
          if (ar.failed()) {
            inFlight.failedBeforeEffect(0, "upstream connection failed");
            outcome.unreachable();
            return;
          }
          HttpClientRequest up = ar.result();
          up.headers()
              .set("Idempotency-Key", inFlight.id().value())
              .set("traceparent", TraceContext.next(req.getHeader("traceparent")));
          long timer =
              context
                  .owner()
                  .setTimer(
                      proxy.options.upstreamTimeout().toMillis(),
                      t -> {
                        if (tap.timeout()) {
                          outcome.timedOut();
                          up.reset();
                        }
                      });
          Future<HttpClientResponse> answer = up.send(body);
          outcome.sending(up);
          answer.onComplete(
              r -> {
                if (r.failed()) {
                  context.owner().cancelTimer(timer);
                  if (!tap.settled()) {
                    tap.onFailure("upstream request failed after it was sent");
                    outcome.brokenAfterSend();
                  }
                  return;
                }
                outcome.answered(up, r.result(), timer);
              });
        });
  }
}
