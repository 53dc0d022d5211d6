package dev.tally.sidecar.internal.upstream;

import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * The one way a request goes upstream, for every caller (a pass-through, a dispatched call, an
 * element of a batch, a resumption): open a request on the right lane of {@link Upstream} with the
 * client's end-to-end headers, let the caller add its own, send the body, and report how it ended
 * before a response, or hand over the response. What the outcome means for an execution is core's
 * ({@code DispatchRecorder}); this class only moves bytes.
 */
public final class UpstreamExchange {
  private UpstreamExchange() {}

  /** Where an exchange's events go. Called on the caller's event loop. */
  public interface Listener {
    /** No connection could be had: nothing was sent. */
    void unreachable();

    /**
     * The request failed after it may have reached the upstream and before a response head: {@code
     * timeout} when no head came within the lane's limit, else a broken connection.
     */
    void broke(boolean timeout);

    /** The response head arrived. */
    void response(HttpClientRequest up, HttpClientResponse resp);

    /** The request is being sent; {@code up} may be reset to cancel it. */
    default void sending(HttpClientRequest up) {}
  }

  /**
   * One request to send.
   *
   * @param method the HTTP method
   * @param query the client's query string, or {@code null}
   * @param headers the client's headers (hop-by-hop ones are dropped)
   * @param body the body, or {@code null} for none
   * @param stream the long-lived lane and its own pool (the session's standalone GET stream), else
   *     the call lane
   * @param headTimeoutMs how long to wait for the response head; 0: the caller times it
   */
  public record Request(
      HttpMethod method,
      String query,
      MultiMap headers,
      Buffer body,
      boolean stream,
      long headTimeoutMs) {}

  /**
   * Sends {@code request} on {@code upstream}, with what {@code decorate} (may be {@code null})
   * sets on it, and reports to {@code listener}.
   */
  public static void send(
      Upstream upstream, Request request, Consumer<HttpClientRequest> decorate, Listener listener) {
    Future<HttpClientRequest> opened;
    try {
      opened =
          request.stream()
              ? upstream.openStream(request.method(), request.query(), request.headers())
              : upstream.open(
                  request.method(), request.query(), request.headers(), request.headTimeoutMs());
    } catch (RuntimeException e) {
      // Nothing was sent: a local bug here must never leave an execution dispatched.
      opened = Future.failedFuture(e);
    }
    opened.onComplete(
        ar -> {
          if (ar.failed()) {
            listener.unreachable();
            return;
          }
          HttpClientRequest up = ar.result();
          if (decorate != null) {
            decorate.accept(up);
          }
          Buffer body = request.body();
          Future<HttpClientResponse> sent = body == null ? up.send() : up.send(body);
          listener.sending(up);
          sent.onComplete(
              r -> {
                if (r.failed()) {
                  listener.broke(isTimeout(r.cause()));
                } else {
                  listener.response(up, r.result());
                }
              });
        });
  }

  /** Whether {@code t} (or a cause) is the lane's timeout. */
  static boolean isTimeout(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof TimeoutException) {
        return true;
      }
    }
    return false;
  }
}
