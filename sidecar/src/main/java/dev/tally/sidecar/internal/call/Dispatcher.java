package dev.tally.sidecar.internal.call;

import dev.tally.core.call.CallReply;
import dev.tally.core.mcp.Era;
import dev.tally.core.mcp.McpNames.HeaderNames;
import dev.tally.sidecar.internal.context.ProxyContext;
import dev.tally.sidecar.internal.upstream.UpstreamExchange;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;

/**
 * Sends one dispatched {@code tools/call} upstream, for a single call and a batch element alike:
 * the client's headers plus {@code Idempotency-Key: <execution id>} and a child {@code traceparent}
 * (the dispatch span's, from core), the body core spliced the execution id into, and the tap's
 * timers ({@code upstream.timeout}; on a legacy-era session, the listing that lets the client's
 * {@code notifications/cancelled} reach the call). What went wrong before a response is recorded by
 * core's recorder; the port only answers its client.
 */
final class Dispatcher {
  /** How the attempt went, for the port. */
  interface Outcome {
    /**
     * The call ended before a response (unreachable, broken, timed out, cancelled): tell the client
     * {@code told} (core's answer or refusal for that case).
     */
    void told(CallReply told);

    /** The upstream answered: read the response (the tap settles the call). */
    void response(HttpClientRequest up, HttpClientResponse resp);

    /** The request is on its way; {@code up} may be reset to cancel it. */
    default void sending(HttpClientRequest up) {}
  }

  private Dispatcher() {}

  static void send(
      ProxyContext ctx,
      HttpServerRequest req,
      CallReply.Dispatch dispatch,
      DispatchTap tap,
      Outcome outcome) {
    String executionId = dispatch.inFlight().id().value();
    UpstreamExchange.send(
        ctx.upstream(),
        new UpstreamExchange.Request(
            HttpMethod.POST, req.query(), req.headers(), Buffer.buffer(dispatch.body()), false, 0),
        up ->
            up.headers()
                .set(HeaderNames.IDEMPOTENCY_KEY, executionId)
                .set(HeaderNames.TRACEPARENT, dispatch.traceparent()),
        new UpstreamExchange.Listener() {
          @Override
          public void unreachable() {
            outcome.told(tap.recorder().unreachable());
          }

          @Override
          public void sending(HttpClientRequest up) {
            tap.arm(
                Era.ofHeader(req.getHeader(HeaderNames.PROTOCOL_VERSION)) == Era.LEGACY
                    ? req.getHeader(HeaderNames.SESSION_ID)
                    : null,
                told -> {
                  outcome.told(told);
                  up.reset();
                });
            outcome.sending(up);
          }

          @Override
          public void broke(boolean timeout) {
            tap.disarm();
            CallReply told = tap.recorder().broke("upstream request failed after it was sent");
            if (told != null) {
              outcome.told(told);
            }
          }

          @Override
          public void response(HttpClientRequest up, HttpClientResponse resp) {
            outcome.response(up, resp);
          }
        });
  }
}
