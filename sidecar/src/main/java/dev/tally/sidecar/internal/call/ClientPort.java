package dev.tally.sidecar.internal.call;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.call.CallReply;
import dev.tally.core.call.Delivery;
import dev.tally.core.contract.DisconnectBehaviour;
import dev.tally.core.mcp.McpNames.HeaderNames;
import dev.tally.core.mcp.MediaTypes;
import dev.tally.core.mcp.SseEvent;
import dev.tally.core.mcp.SseWriter;
import dev.tally.sidecar.internal.context.ProxyContext;
import dev.tally.sidecar.internal.http.Replies;
import dev.tally.sidecar.internal.http.RequestHeaders;
import dev.tally.sidecar.internal.relay.Forwarder;
import dev.tally.sidecar.internal.relay.Relay;
import dev.tally.sidecar.internal.relay.SseRelay;
import dev.tally.sidecar.internal.stream.ResponseSink;
import dev.tally.sidecar.internal.stream.StreamBuffer;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;

/**
 * The answer of a single {@code tools/call} goes on the client's own HTTP response: forwarded and
 * dispatched calls relay the upstream's response (SSE re-framed with the sidecar's ids and kept for
 * resumption), Tally's own answers go out as JSON or as a one-event SSE stream like the upstream's,
 * refusals as JSON with their status.
 */
final class ClientPort implements AnswerPort {
  private final ProxyContext ctx;
  private final HttpServerRequest req;
  private final Buffer raw;
  private final JsonNode id;
  private final boolean modern;
  private final Context context = Vertx.currentContext();

  /** The port of {@code req}, whose body {@code raw} holds the call with request id {@code id}. */
  ClientPort(ProxyContext ctx, HttpServerRequest req, Buffer raw, JsonNode id, boolean modern) {
    this.ctx = ctx;
    this.req = req;
    this.raw = raw;
    this.id = id;
    this.modern = modern;
  }

  private boolean priming() {
    return ctx.primes(req.getHeader(HeaderNames.PROTOCOL_VERSION));
  }

  @Override
  public void forward() {
    Forwarder.forward(
        ctx, req, raw, id, new Relay.Mode(null, modern, priming()), ctx.upstreamTimeoutMs());
  }

  @Override
  public void dispatch(CallReply.Dispatch d) {
    DispatchTap tap = new DispatchTap(ctx, d.recorder(), context);
    boolean cancel = modern && d.inFlight().contract().onDisconnect() == DisconnectBehaviour.CANCEL;
    Dispatcher.send(
        ctx,
        req,
        d,
        tap,
        new Dispatcher.Outcome() {
          @Override
          public void told(CallReply told) {
            if (req.response().headWritten() || req.response().ended()) {
              return; // an SSE answer under way: the tap told the client on the stream
            }
            if (told instanceof CallReply.Answer a) {
              answer(a.message(), a.delivery());
            } else {
              refuse((CallReply.Refusal) told);
            }
          }

          @Override
          public void sending(HttpClientRequest up) {
            if (cancel) {
              // A 2026-07-28 client that closes its stream cancels a tool whose contract says
              // cancel: reset the upstream request at once, also before it answered.
              HttpServerResponse resp = req.response();
              resp.closeHandler(
                  v -> {
                    if (!resp.ended() && !tap.settled()) {
                      // Settles the call at once (outcome_unknown) and resets the upstream.
                      tap.onClientClosed();
                    }
                  });
            }
          }

          @Override
          public void response(HttpClientRequest up, HttpClientResponse resp) {
            if (MediaTypes.isSse(resp.getHeader(HttpHeaders.CONTENT_TYPE))) {
              tap.onHead(resp.statusCode(), true);
              tap.stream(
                  SseRelay.start(ctx, req, up, resp, new Relay.Mode(tap, cancel, priming()), null));
            } else {
              Relay.relay(ctx, req, up, resp, new Relay.Mode(tap, cancel, false), null);
            }
          }
        });
  }

  /** A complete answer from Tally, as JSON or as a one-event SSE stream like the upstream's. */
  @Override
  public void answer(byte[] bytes, Delivery delivery) {
    HttpServerResponse resp = req.response();
    String accept = req.getHeader(HttpHeaders.ACCEPT);
    boolean sse =
        ctx.toolCallsAnswerSse() && MediaTypes.accepts(accept, MediaTypes.SSE)
            || !MediaTypes.accepts(accept, MediaTypes.JSON)
                && MediaTypes.accepts(accept, MediaTypes.SSE);
    if (!sse) {
      Replies.json(resp, 200, bytes).onComplete(ar -> delivery.written(ar.succeeded()));
      return;
    }
    if (resp.closed()) {
      delivery.written(false);
      return;
    }
    StreamBuffer b =
        ctx.streams()
            .open(
                req.getHeader(HeaderNames.SESSION_ID),
                ctx.admission().ownerOf(new RequestHeaders(req)));
    resp.setStatusCode(200).setChunked(true);
    resp.headers()
        .set(HttpHeaders.CONTENT_TYPE, Replies.EVENT_STREAM)
        .set("Cache-Control", "no-cache")
        .set("X-Accel-Buffering", "no");
    if (priming()) {
      resp.write(Buffer.buffer(SseWriter.priming(b.primingId(), -1)));
    }
    ResponseSink sink =
        ResponseSink.of(resp, ctx.options().clients().maxUndeliveredBytes(), ctx.limitHits());
    b.attach(sink);
    resp.closeHandler(v -> b.detach(sink));
    b.append(SseEvent.message(bytes), delivery);
    b.end();
  }

  @Override
  public void refuse(CallReply.Refusal refusal) {
    Replies.refuse(req.response(), refusal);
  }
}
