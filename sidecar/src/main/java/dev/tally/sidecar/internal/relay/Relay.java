package dev.tally.sidecar.internal.relay;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.call.Delivery;
import dev.tally.core.mcp.MediaTypes;
import dev.tally.sidecar.internal.context.ProxyContext;
import dev.tally.sidecar.internal.http.Replies;
import dev.tally.sidecar.internal.upstream.BrokenAnswer;
import dev.tally.sidecar.internal.upstream.Upstream;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.time.Duration;

/**
 * Relays one upstream response to the client: SSE through {@link SseRelay} (re-framed with the
 * sidecar's event ids), JSON that a {@link MessageTap} must see read whole (bounded), anything else
 * piped through untouched.
 */
public final class Relay {
  private Relay() {}

  /** Options of one relay. */
  public record Mode(MessageTap tap, boolean cancelOnClientClose, boolean priming) {}

  /**
   * Relays {@code upResp}, the answer to the JSON-RPC request {@code requestId} ({@code null}:
   * none, or a tap speaks for it), to the client. An answer that breaks off (the upstream reset it,
   * or went silent for {@code upstream.timeout}) is never passed off as complete: the client gets a
   * JSON-RPC error if nothing was written yet, an error event on an SSE stream, and otherwise a
   * reset connection. Silence is timed per answer, from its head ({@link BrokenAnswer}).
   */
  public static void relay(
      ProxyContext ctx,
      HttpServerRequest clientReq,
      HttpClientRequest upReq,
      HttpClientResponse upResp,
      Mode mode,
      JsonNode requestId) {
    HttpServerResponse resp = clientReq.response();
    boolean sse = MediaTypes.isSse(upResp.getHeader(HttpHeaders.CONTENT_TYPE));
    if (mode.tap() != null) {
      mode.tap().onResponseHeaders(upResp.headers());
      mode.tap().onHead(upResp.statusCode(), sse);
    }
    if (!sse && (mode.tap() == null || mode.cancelOnClientClose())) {
      // A JSON answer cannot be resumed: a vanished client needs no more of it, unless a tap
      // must capture it (a dispatched call that finishes on disconnect).
      resp.closeHandler(
          v -> {
            if (!resp.ended()) {
              if (mode.tap() != null) {
                mode.tap().onClientClosed();
              }
              upReq.reset();
            }
          });
    }
    if (sse) {
      SseRelay.start(ctx, clientReq, upReq, upResp, mode, requestId);
    } else if (mode.tap() != null) {
      relayJson(ctx, resp, upResp, mode.tap());
    } else {
      copyHead(upResp, resp, false);
      stream(upResp, resp, ctx.options().upstreamTimeout(), requestId);
    }
  }

  /**
   * Copies {@code from}'s body to {@code to} with back-pressure. A body of declared length is held
   * back a chunk (until the next one or the end arrives), so that a body read in one chunk leaves
   * in one {@code end(buf)}: head, body and end in one write instead of a write and a separate end.
   * Ends {@code to} when {@code from} ends. {@code from} is cut after {@code silenceLimit} without
   * a byte ({@link BrokenAnswer}). When {@code from} breaks, {@code to} gets the error for {@code
   * requestId} if its head is not written yet, else it is reset: a truncated body must not look
   * whole.
   *
   * <p>Implementation note: replaces {@code ReadStream.pipeTo}, whose promise chain and
   * synchronization cost ~12% of a pass-through request's event-loop time (JFR, bench/README.md).
   */
  public static void stream(
      HttpClientResponse from, HttpServerResponse to, Duration silenceLimit, JsonNode requestId) {
    BrokenAnswer broken = BrokenAnswer.watch(from, silenceLimit);
    // Only a body of declared length is held back: a chunked one may be a live stream.
    boolean hold = from.getHeader(HttpHeaders.CONTENT_LENGTH) != null;
    Buffer[] held = {null};
    from.handler(
        chunk -> {
          broken.heard();
          Buffer previous = held[0];
          held[0] = chunk;
          if (!hold) {
            previous = chunk;
            held[0] = null;
          }
          if (previous != null) {
            to.write(previous);
            if (to.writeQueueFull()) {
              from.pause();
              to.drainHandler(v -> from.resume());
            }
          }
        });
    from.exceptionHandler(
        t -> {
          broken.done();
          held[0] = null;
          if (to.ended() || to.closed()) {
            return;
          }
          if (to.headWritten()) {
            to.reset();
          } else {
            Replies.refuse(to, requestId, broken.error());
          }
        });
    from.endHandler(
        v -> {
          broken.done();
          endWith(to, held);
        });
  }

  private static void endWith(HttpServerResponse to, Buffer[] held) {
    Buffer last = held[0];
    held[0] = null;
    if (to.ended() || to.closed()) {
      return;
    }
    if (last == null) {
      to.end();
    } else {
      to.end(last);
    }
  }

  /** Copies status and end-to-end headers; drops the length when the body will be re-framed. */
  public static void copyHead(HttpClientResponse from, HttpServerResponse to, boolean reframed) {
    to.setStatusCode(from.statusCode());
    String reason = from.statusMessage();
    // Only a reason phrase of the upstream's own: setting one builds a new status line object.
    if (reason != null && !reason.equals(to.getStatusMessage())) {
      to.setStatusMessage(reason);
    }
    MultiMap h = to.headers();
    String length = reframed ? null : from.getHeader(HttpHeaders.CONTENT_LENGTH);
    if (h.isEmpty()) {
      Upstream.copyEndToEnd(from.headers(), h);
    } else {
      for (var e : from.headers()) {
        if (!Upstream.isHopByHop(e.getKey())) {
          h.add(e.getKey(), e.getValue());
        }
      }
    }
    if (length != null) {
      h.set(HttpHeaders.CONTENT_LENGTH, length);
    }
    int status = from.statusCode();
    if (length == null && !reframed && status != 204 && status != 304) {
      to.setChunked(true);
    }
  }

  /**
   * A JSON answer a tap must see first: read whole ({@link MessageReader}), handed to the tap, and
   * written to the client once the tap lets it go, then the tap hears the end.
   */
  private static void relayJson(
      ProxyContext ctx, HttpServerResponse resp, HttpClientResponse upResp, MessageTap tap) {
    Future<?>[] held = {Future.succeededFuture()};
    byte[][] answer = {null};
    MessageReader.read(
        upResp,
        ctx.options().maxResponseBytes(),
        ctx.options().upstreamTimeout(),
        new MessageReader.Sink() {
          @Override
          public void message(byte[] message) {
            Future<Delivery> gate = tap.onMessage(message);
            answer[0] = tap.rewrite(message);
            if (gate != null) {
              held[0] = gate;
            }
          }

          @Override
          public void end(MessageReader.Failure failure) {
            if (failure != null) {
              tap.onFailure(failure.reason());
              Replies.refuse(resp, null, failure.error());
              return;
            }
            held[0].onComplete(
                ar -> {
                  Delivery d =
                      ar.succeeded() && ar.result() instanceof Delivery r ? r : Delivery.NONE;
                  if (resp.closed() || resp.ended()) {
                    d.written(false);
                  } else {
                    copyHead(upResp, resp, true);
                    Future<Void> w =
                        answer[0] == null ? resp.end() : resp.end(Buffer.buffer(answer[0]));
                    w.onComplete(x -> d.written(x.succeeded()));
                  }
                  tap.onEnd();
                });
          }
        });
  }
}
