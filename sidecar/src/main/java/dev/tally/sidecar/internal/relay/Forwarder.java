package dev.tally.sidecar.internal.relay;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.mcp.TallyError;
import dev.tally.sidecar.internal.context.ProxyContext;
import dev.tally.sidecar.internal.http.Replies;
import dev.tally.sidecar.internal.upstream.UpstreamExchange;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpServerRequest;

/** Sends a client request on to the upstream unchanged and relays the answer to the client. */
public final class Forwarder {
  static final TallyError UNREACHABLE =
      TallyError.of(
          TallyError.Code.UPSTREAM_UNAVAILABLE,
          "the upstream MCP server cannot be reached; nothing was sent");
  static final TallyError TIMED_OUT =
      TallyError.of(
          TallyError.Code.UPSTREAM_TIMEOUT,
          "no answer from the upstream MCP server within upstream.timeout");
  static final TallyError BROKE =
      TallyError.of(
          TallyError.Code.UPSTREAM_UNAVAILABLE,
          "the upstream MCP server broke the connection before answering");

  private Forwarder() {}

  /**
   * Forwards {@code req} with {@code body} ({@code null}: none) for the JSON-RPC request {@code id}
   * ({@code null}: none, or not a request). {@code idleMs} bounds the wait for the answer, and
   * silence inside it; 0 means unbounded: the session's long-lived standalone GET stream.
   */
  public static void forward(
      ProxyContext ctx,
      HttpServerRequest req,
      Buffer body,
      JsonNode id,
      Relay.Mode mode,
      long idleMs) {
    UpstreamExchange.send(
        ctx.upstream(),
        new UpstreamExchange.Request(
            req.method(), req.query(), req.headers(), body, idleMs == 0, idleMs),
        null,
        new UpstreamExchange.Listener() {
          @Override
          public void unreachable() {
            Replies.refuse(req.response(), id, UNREACHABLE);
          }

          @Override
          public void broke(boolean timeout) {
            if (mode.tap() != null) {
              mode.tap().onFailure("upstream request failed");
            }
            Replies.refuse(req.response(), id, timeout ? TIMED_OUT : BROKE);
          }

          @Override
          public void sending(HttpClientRequest up) {
            if (mode.cancelOnClientClose()) {
              // A closed stream cancels: do not keep the upstream working for nobody, also before
              // its answer began (the relay takes over from there).
              req.response()
                  .closeHandler(
                      v -> {
                        if (!req.response().ended()) {
                          up.reset();
                        }
                      });
            }
          }

          @Override
          public void response(HttpClientRequest up, HttpClientResponse resp) {
            Relay.relay(ctx, req, up, resp, mode, id);
          }
        });
  }
}
