package dev.tally.sidecar.internal.proxy;

import dev.tally.sidecar.internal.sse.SseEvent;
import dev.tally.sidecar.internal.sse.SseException;
import dev.tally.sidecar.internal.sse.SseParser;
import dev.tally.sidecar.internal.sse.SseWriter;
import dev.tally.sidecar.internal.stream.Delivery;
import dev.tally.sidecar.internal.stream.StreamBuffer;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.util.ArrayDeque;

/**
 * Relays an upstream SSE response: parses it, drops the upstream's own ids and empty (priming)
 * events, hands every message to the tap, and appends it to a {@link StreamBuffer} under the
 * sidecar's id. The upstream is read to its end even when the client goes away (ARCHITECTURE.md
 * §7), unless the mode cancels on client close. A message the tap holds back pauses the upstream so
 * order is kept.
 */
final class SseRelay {
  private final HttpClientRequest upReq;
  private final HttpClientResponse upResp;
  private final MessageTap tap;
  private final StreamBuffer buffer;
  private final ArrayDeque<SseEvent> queue = new ArrayDeque<>();
  private final SseParser parser;
  private boolean holding;
  private boolean upstreamEnded;
  private boolean finished;

  private SseRelay(
      Proxy proxy,
      HttpClientRequest upReq,
      HttpClientResponse upResp,
      MessageTap tap,
      StreamBuffer b) {
    this.upReq = upReq;
    this.upResp = upResp;
    this.tap = tap;
    this.buffer = b;
    this.parser = SseParser.create(this::onEvent, proxy.options.maxResponseBytes());
  }

  static StreamBuffer start(
      Proxy proxy,
      HttpServerRequest clientReq,
      HttpClientRequest upReq,
      HttpClientResponse upResp,
      Relay.Mode mode) {
    HttpServerResponse resp = clientReq.response();
    String session = upResp.getHeader("Mcp-Session-Id");
    if (session == null) {
      session = clientReq.getHeader("Mcp-Session-Id");
    }
    // A GET stream is the session's standalone stream: a client that reconnects to it without a
    // cursor is attached to it again (McpHandler) instead of opening a second one upstream.
    StreamBuffer b =
        clientReq.method() == HttpMethod.GET
            ? proxy.streams.openStandalone(session)
            : proxy.streams.open(session);
    SseRelay relay = new SseRelay(proxy, upReq, upResp, mode.tap(), b);
    Relay.copyHead(upResp, resp, true);
    resp.setChunked(true);
    resp.headers().set("Cache-Control", "no-cache").set("X-Accel-Buffering", "no");
    ResponseSink sink = new ResponseSink(resp);
    if (mode.priming()) {
      resp.write(Buffer.buffer(SseWriter.priming(b.primingId())));
    } else {
      resp.writeHead();
    }
    b.attach(sink);
    resp.closeHandler(
        v -> {
          b.detach(sink);
          if (mode.cancelOnClientClose() && !b.ended()) {
            upReq.reset();
          }
        });
    if (mode.tap() == null) {
      // Streams nobody captures are cancelled upstream when abandoned for too long.
      b.onCancel(() -> upReq.reset());
    }
    upResp.handler(relay::feed);
    upResp.exceptionHandler(
        t -> relay.broken("upstream stream broke: " + t.getClass().getSimpleName()));
    upResp.endHandler(v -> relay.upstreamEnd());
    return b;
  }

  private void feed(Buffer chunk) {
    if (finished) {
      return;
    }
    try {
      byte[] bytes = chunk.getBytes();
      parser.feed(bytes, 0, bytes.length);
    } catch (SseException e) {
      upReq.reset();
      broken(e.getMessage());
    }
  }

  private void onEvent(SseEvent e) {
    if (e.data().length == 0) {
      return;
    }
    SseEvent clean = new SseEvent(null, e.type(), e.data(), e.retry());
    if (holding) {
      queue.addLast(clean);
      return;
    }
    process(clean);
  }

  private void process(SseEvent e) {
    Future<Delivery> hold = tap == null ? null : tap.onMessage(e.data());
    if (hold == null) {
      buffer.append(e, Delivery.NONE);
      return;
    }
    holding = true;
    upResp.pause();
    hold.onComplete(
        ar -> {
          Delivery d = ar.succeeded() && ar.result() != null ? ar.result() : Delivery.NONE;
          buffer.append(e, d);
          holding = false;
          while (!holding && !queue.isEmpty()) {
            process(queue.pollFirst());
          }
          if (!holding) {
            if (upstreamEnded) {
              finish(null);
            } else {
              upResp.resume();
            }
          }
        });
  }

  private void upstreamEnd() {
    parser.end();
    upstreamEnded = true;
    if (!holding) {
      finish(null);
    }
  }

  private void broken(String reason) {
    upstreamEnded = true;
    queue.clear();
    if (!holding) {
      finish(reason);
    } else {
      finished = true;
      if (tap != null) {
        tap.onFailure(reason);
      }
      buffer.end();
    }
  }

  private void finish(String failure) {
    if (finished) {
      return;
    }
    finished = true;
    // The tap goes first: it may append a last event (an error for an unanswered call).
    if (tap != null) {
      tap.ended(failure);
    }
    buffer.end();
  }
}
