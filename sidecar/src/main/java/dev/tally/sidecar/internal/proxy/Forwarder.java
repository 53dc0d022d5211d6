package dev.tally.sidecar.internal.proxy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.gate.TallyError;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpServerRequest;

/** Sends a client request on to the upstream unchanged and relays the answer. */
final class Forwarder {
  private Forwarder() {}

  /**
   * Forwards {@code req} with {@code body} ({@code null}: none) for the JSON-RPC request {@code id}
   * ({@code null}: none, or not a request). {@code idleMs} bounds the wait for the answer, and
   * silence inside it; 0 means unbounded: the session's long-lived standalone GET stream.
   */
  static void forward(
      Proxy proxy, HttpServerRequest req, Buffer body, JsonNode id, Relay.Mode mode, long idleMs) {
    Upstream upstream = proxy.upstream;
    (idleMs == 0
            ? upstream.openStream(req.method(), req.query(), req.headers())
            : upstream.open(req.method(), req.query(), req.headers(), idleMs))
        .onComplete(
            ar -> {
              if (ar.failed()) {
                unreachable(req, id);
                return;
              }
              HttpClientRequest up = ar.result();
              Future<HttpClientResponse> sent = body == null ? up.send() : up.send(body);
              if (mode.cancelOnClientClose()) {
                // A closed stream cancels: do not keep the upstream working for nobody, also
                // before its answer began (the relay takes over from there).
                req.response()
                    .closeHandler(
                        v -> {
                          if (!req.response().ended()) {
                            up.reset();
                          }
                        });
              }
              sent.onComplete(
                  r -> {
                    if (r.failed()) {
                      if (mode.tap() != null) {
                        mode.tap().onFailure("upstream request failed");
                      }
                      boolean timeout = isTimeout(r.cause());
                      Replies.refuse(
                          req.response(),
                          id,
                          timeout
                              ? TallyError.Code.UPSTREAM_TIMEOUT
                              : TallyError.Code.UPSTREAM_UNAVAILABLE,
                          timeout
                              ? "no answer from the upstream MCP server within upstream.timeout"
                              : "the upstream MCP server broke the connection before answering");
                      return;
                    }
                    Relay.relay(proxy, req, up, r.result(), mode, id);
                  });
            });
  }

  static boolean isTimeout(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof java.util.concurrent.TimeoutException
          || c.getClass().getSimpleName().contains("Timeout")) {
        return true;
      }
    }
    return false;
  }

  static void unreachable(HttpServerRequest req, JsonNode id) {
    Replies.refuse(
        req.response(),
        id,
        TallyError.Code.UPSTREAM_UNAVAILABLE,
        "the upstream MCP server cannot be reached; nothing was sent");
  }
}
