package dev.tally.sidecar.internal.proxy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.gate.TallyError;
import dev.tally.core.mcp.ToolResults;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;

/**
 * Forwards one element of a split batch that needs no gate (a request other than a dispatched
 * {@code tools/call}, a notification, or a client's response) as its own POST with the client's
 * headers (session, protocol version, authorization), and collects its answer. Sent singly rather
 * than as a smaller batch: some upstreams refuse batches (the MCP Java SDK answers 400).
 */
final class BatchForward {
  private BatchForward() {}

  /**
   * Sends {@code len} bytes of {@code bytes} from {@code off}. With an {@code id} the future holds
   * the upstream's answer (or an error answer naming what went wrong); without one it holds {@link
   * BatchAnswer#NONE}. The future always succeeds.
   */
  static Future<BatchAnswer> send(
      Proxy proxy, HttpServerRequest req, byte[] bytes, int off, int len, JsonNode id) {
    return send(proxy, req, bytes, off, len, id, null);
  }

  /** As {@link #send}; {@code tap} (may be {@code null}) also sees the answer. */
  static Future<BatchAnswer> send(
      Proxy proxy,
      HttpServerRequest req,
      byte[] bytes,
      int off,
      int len,
      JsonNode id,
      MessageTap tap) {
    Promise<BatchAnswer> done = Promise.promise();
    long idle = proxy.options.upstreamTimeout().toMillis();
    proxy
        .upstream
        .open(HttpMethod.POST, req.query(), req.headers(), idle)
        .onComplete(
            ar -> {
              if (ar.failed()) {
                done.complete(
                    error(
                        id,
                        TallyError.Code.UPSTREAM_UNAVAILABLE,
                        "the upstream MCP server cannot be reached; nothing was sent"));
                return;
              }
              HttpClientRequest up = ar.result();
              up.send(Buffer.buffer().appendBytes(bytes, off, len))
                  .onComplete(
                      r -> {
                        if (r.failed()) {
                          boolean timeout = Forwarder.isTimeout(r.cause());
                          done.complete(
                              error(
                                  id,
                                  timeout
                                      ? TallyError.Code.UPSTREAM_TIMEOUT
                                      : TallyError.Code.UPSTREAM_UNAVAILABLE,
                                  timeout
                                      ? "no answer from the upstream MCP server within"
                                          + " upstream.timeout"
                                      : "the upstream MCP server broke the connection before"
                                          + " answering"));
                          return;
                        }
                        int status = r.result().statusCode();
                        AnswerReader.read(proxy, r.result(), id, null)
                            .onComplete(
                                a -> {
                                  BatchAnswer got = a.result();
                                  if (id == null) {
                                    done.complete(BatchAnswer.NONE);
                                  } else if (got != null) {
                                    if (tap != null) {
                                      tap.onMessage(got.message());
                                    }
                                    done.complete(got);
                                  } else {
                                    done.complete(
                                        error(
                                            id,
                                            TallyError.Code.UPSTREAM_UNAVAILABLE,
                                            "the upstream MCP server answered HTTP "
                                                + status
                                                + " without a JSON-RPC response to this request"));
                                  }
                                });
                      });
            });
    return done.future();
  }

  private static BatchAnswer error(JsonNode id, TallyError.Code code, String message) {
    return id == null
        ? BatchAnswer.NONE
        : BatchAnswer.of(ToolResults.error(id, TallyError.of(code, message)));
  }
}
