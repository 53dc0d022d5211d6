package dev.tally.sidecar.internal.proxy;

import dev.tally.core.mcp.McpNames.HeaderNames;
import dev.tally.core.mcp.TallyError;
import dev.tally.sidecar.internal.context.ProxyContext;
import dev.tally.sidecar.internal.http.Replies;
import dev.tally.sidecar.internal.http.RequestHeaders;
import dev.tally.sidecar.internal.stream.EventId;
import dev.tally.sidecar.internal.stream.ResponseSink;
import dev.tally.sidecar.internal.stream.StreamBuffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.util.Objects;

/**
 * A GET with {@code Last-Event-ID}: replays what followed that id on that stream only, then
 * continues live, or ends if the stream ended (2025-11-25 transports, "Resumability and
 * Redelivery"). Answered by the sidecar alone; the upstream never sees sidecar ids.
 */
final class ResumeFlow {
  private ResumeFlow() {}

  static void run(ProxyContext ctx, HttpServerRequest req, String lastEventId) {
    HttpServerResponse resp = req.response();
    EventId cursor = EventId.parse(lastEventId);
    StreamBuffer b = ctx.streams().find(cursor);
    if (b == null || !sameSession(b, req.getHeader(HeaderNames.SESSION_ID))) {
      unknown(resp);
      return;
    }
    if (!ownedByCaller(ctx, b.owner(), req)) {
      return;
    }
    streamHead(resp);
    ResponseSink sink =
        ResponseSink.of(resp, ctx.options().clients().maxUndeliveredBytes(), ctx.limitHits());
    resp.closeHandler(v -> b.detach(sink));
    if (b.resume(cursor.seq(), sink) == StreamBuffer.Resume.UNKNOWN) {
      resp.headers().clear();
      resp.setChunked(false);
      unknown(resp);
      return;
    }
    if (!resp.headWritten() && !resp.ended()) {
      resp.writeHead();
    }
  }

  /**
   * A GET without {@code Last-Event-ID} on a session whose standalone stream is still relayed but
   * has no client: attaches the client to it (replaying what no client received) and returns true.
   * The upstream keeps its one stream per session, so the client is not refused with 409 while the
   * abandoned stream awaits expiry. Returns false when there is no such stream.
   */
  static boolean reattach(ProxyContext ctx, HttpServerRequest req) {
    StreamBuffer b = ctx.streams().standalone(req.getHeader(HeaderNames.SESSION_ID));
    if (b == null) {
      return false;
    }
    if (!ownedByCaller(ctx, b.owner(), req)) {
      return true;
    }
    HttpServerResponse resp = req.response();
    streamHead(resp);
    ResponseSink sink =
        ResponseSink.of(resp, ctx.options().clients().maxUndeliveredBytes(), ctx.limitHits());
    resp.closeHandler(v -> b.detach(sink));
    if (!b.reattach(sink)) {
      resp.headers().clear();
      resp.setChunked(false);
      return false;
    }
    if (!resp.headWritten() && !resp.ended()) {
      resp.writeHead();
    }
    return true;
  }

  private static void streamHead(HttpServerResponse resp) {
    resp.setStatusCode(200).setChunked(true);
    resp.headers()
        .set(HttpHeaders.CONTENT_TYPE, Replies.EVENT_STREAM)
        .set("Cache-Control", "no-cache")
        .set("X-Accel-Buffering", "no");
  }

  /**
   * Whether {@code req} comes from {@code owner}, the actor that opened the stream or session
   * (under any key of the ring); otherwise refuses it with 403 {@code FORBIDDEN_SESSION} and
   * returns false. Nothing of the stream is written.
   */
  static boolean ownedByCaller(ProxyContext ctx, String owner, HttpServerRequest req) {
    if (ctx.admission().sameOwner(owner, new RequestHeaders(req))) {
      return true;
    }
    Replies.refuse(
        req.response(),
        null,
        TallyError.Code.FORBIDDEN_SESSION,
        "this MCP session or stream was opened by another caller (expected: the credential that"
            + " opened it)");
    return false;
  }

  private static boolean sameSession(StreamBuffer b, String session) {
    return b.session() == null || Objects.equals(b.session(), session);
  }

  private static void unknown(HttpServerResponse resp) {
    Replies.refuse(
        resp,
        null,
        TallyError.Code.UNKNOWN_EVENT_ID,
        "Last-Event-ID is unknown or has expired; resumption is not possible, send the request"
            + " again");
  }
}
