package dev.tally.sidecar.internal.proxy;

import dev.tally.core.mcp.Era;
import dev.tally.core.mcp.McpNames.HeaderNames;
import dev.tally.core.mcp.TallyError;
import dev.tally.sidecar.LimitHits;
import dev.tally.sidecar.internal.context.ProxyContext;
import dev.tally.sidecar.internal.http.BodyBudget;
import dev.tally.sidecar.internal.http.ConnectionGuard;
import dev.tally.sidecar.internal.http.Framing;
import dev.tally.sidecar.internal.http.Replies;
import dev.tally.sidecar.internal.relay.Forwarder;
import dev.tally.sidecar.internal.relay.Relay;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.util.concurrent.atomic.AtomicBoolean;

/** The sidecar's request handler: endpoint, host, origin and method checks, then the flows. */
public final class McpHandler implements Handler<HttpServerRequest> {
  private final ProxyContext ctx;

  private McpHandler(ProxyContext ctx) {
    this.ctx = ctx;
  }

  public static McpHandler create(ProxyContext ctx) {
    return new McpHandler(ctx);
  }

  @Override
  public void handle(HttpServerRequest req) {
    HttpConnection conn = req.connection();
    ConnectionGuard.Turn turn = ctx.guard().started(conn);
    if (turn == null) {
      return; // pipelined behind a chunked request: never read, the connection is closing
    }
    ctx.enter();
    BodyBudget.Hold hold = ctx.budget().hold();
    boolean closeAfter = Framing.closeAfter(req);
    AtomicBoolean left = new AtomicBoolean();
    SpanSlot span = new SpanSlot();
    req.response()
        .endHandler(
            v -> {
              if (left.compareAndSet(false, true)) {
                hold.release();
                turn.ended();
                ctx.leave();
                if (closeAfter && req.isEnded()) {
                  conn.close();
                }
                HttpServerResponse resp = req.response();
                span.end(resp.headWritten() ? resp.getStatusCode() : 0);
              }
            });
    String framing = Framing.problem(req);
    if (framing != null) {
      ctx.limitHits().hit(LimitHits.Port.MCP, LimitHits.Limit.FRAMING);
      req.response().headers().set("Connection", "close");
      Replies.refuse(
              req.response(), null, TallyError.Code.INVALID_REQUEST, "request framing: " + framing)
          .onComplete(v -> conn.close());
      return;
    }
    if (closeAfter) {
      // The decoder may have dropped a Content-Length it read beside Transfer-Encoding: whatever
      // follows this body on the connection may be a hidden request (RFC 9112 §6.1), never read.
      ctx.guard().closeAfterThis(conn);
      req.response().headers().set("Connection", "close");
    }
    if (ctx.draining()) {
      Framing.announceClose(req);
      Replies.refuse(
          req.response(), null, TallyError.Code.SHUTTING_DOWN, "the sidecar is shutting down");
      return;
    }
    if (!ctx.options().path().equals(req.path())) {
      req.response().setStatusCode(404).end();
      return;
    }
    if (!ctx.hosts().allows(req)) {
      Replies.refuse(
          req.response(),
          null,
          TallyError.Code.FORBIDDEN_HOST,
          "the Host header is not allowed (a loopback listener accepts loopback names and"
              + " sidecar.allowedHosts)");
      return;
    }
    if (!ctx.origins().allows(req.getHeader(HeaderNames.ORIGIN))) {
      Replies.refuse(
          req.response(),
          null,
          TallyError.Code.FORBIDDEN_ORIGIN,
          "the Origin header is not allowed");
      return;
    }
    HttpMethod m = req.method();
    if (m == HttpMethod.POST) {
      PostFlow.run(ctx, req, hold, turn, span);
    } else if (m == HttpMethod.GET) {
      get(req, span);
    } else {
      // DELETE (end a session), OPTIONS and the rest are the upstream's to answer.
      Forwarder.forward(
          ctx, req, null, null, new Relay.Mode(null, true, false), ctx.upstreamTimeoutMs());
    }
  }

  private void get(HttpServerRequest req, SpanSlot span) {
    String version = req.getHeader(HeaderNames.PROTOCOL_VERSION);
    boolean legacy = Era.ofHeader(version) == Era.LEGACY;
    String last = req.getHeader(HeaderNames.LAST_EVENT_ID);
    span.startStream(ctx.telemetry(), last != null && legacy, req.headers()::get);
    if (last != null && legacy) {
      ResumeFlow.run(ctx, req, last);
      return;
    }
    if (legacy && ResumeFlow.reattach(ctx, req)) {
      return;
    }
    // A new standalone stream of a session another caller opened streams in would receive that
    // session's server-to-client messages.
    String session = req.getHeader(HeaderNames.SESSION_ID);
    if (!ResumeFlow.ownedByCaller(ctx, ctx.streams().sessionOwner(session), req)) {
      return;
    }
    // A standalone server-to-client stream: relayed with sidecar ids, resumable, no idle limit.
    req.headers().remove(HeaderNames.LAST_EVENT_ID);
    Forwarder.forward(ctx, req, null, null, new Relay.Mode(null, !legacy, ctx.primes(version)), 0);
  }
}
