package dev.tally.sidecar.internal.proxy;

import dev.tally.core.call.CallReply;
import dev.tally.core.mcp.BodyScan;
import dev.tally.core.mcp.Era;
import dev.tally.core.mcp.InitializeInfo;
import dev.tally.core.mcp.McpNames.HeaderNames;
import dev.tally.core.mcp.McpNames.Methods;
import dev.tally.core.mcp.MediaTypes;
import dev.tally.core.mcp.TallyError;
import dev.tally.core.observe.McpOperation;
import dev.tally.core.observe.RequestSpan;
import dev.tally.sidecar.internal.call.BatchFlow;
import dev.tally.sidecar.internal.call.CallPipeline;
import dev.tally.sidecar.internal.call.ClientCancellation;
import dev.tally.sidecar.internal.call.LearnTap;
import dev.tally.sidecar.internal.call.SessionTap;
import dev.tally.sidecar.internal.context.ProxyContext;
import dev.tally.sidecar.internal.http.BodyBudget;
import dev.tally.sidecar.internal.http.BodyReader;
import dev.tally.sidecar.internal.http.ConnectionGuard;
import dev.tally.sidecar.internal.http.Replies;
import dev.tally.sidecar.internal.http.RequestHeaders;
import dev.tally.sidecar.internal.relay.Forwarder;
import dev.tally.sidecar.internal.relay.MessageTap;
import dev.tally.sidecar.internal.relay.Relay;
import io.netty.buffer.ByteBuf;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.internal.buffer.BufferInternal;
import java.util.Optional;

/**
 * A POST to the MCP endpoint: transport checks (media types, size), core's classification of the
 * body ({@link dev.tally.core.mcp.BodyClassifier}), then a {@code tools/call} to the call pipeline,
 * a batch to {@link BatchFlow}, and every other message, its headers checked by core, straight
 * through.
 */
final class PostFlow {
  private PostFlow() {}

  static void run(
      ProxyContext ctx,
      HttpServerRequest req,
      BodyBudget.Hold hold,
      ConnectionGuard.Turn turn,
      SpanSlot span) {
    if (!MediaTypes.isJson(req.getHeader(HttpHeaders.CONTENT_TYPE))) {
      Replies.refuse(
          req.response(),
          null,
          TallyError.Code.UNSUPPORTED_MEDIA_TYPE,
          "POST requires Content-Type: application/json");
      return;
    }
    if (!MediaTypes.acceptsBoth(req.getHeader(HttpHeaders.ACCEPT))) {
      Replies.refuse(
          req.response(),
          null,
          TallyError.Code.NOT_ACCEPTABLE,
          "POST requires an Accept header listing application/json and text/event-stream");
      return;
    }
    BodyReader.read(req, ctx.bodyLimits(), hold, turn)
        .onComplete(
            ar -> {
              if (ar.succeeded()) {
                route(ctx, req, ar.result(), span);
              }
            });
  }

  private static void route(ProxyContext ctx, HttpServerRequest req, Buffer body, SpanSlot span) {
    // Classify the received bytes in place (no copy) when the buffer is heap-backed.
    ByteBuf buf = ((BufferInternal) body).getByteBuf();
    byte[] bytes;
    int off;
    if (buf.hasArray()) {
      bytes = buf.array();
      off = buf.arrayOffset() + buf.readerIndex();
    } else {
      bytes = body.getBytes();
      off = 0;
    }
    int len = body.length();
    BodyScan scan = ctx.classifier().classify(bytes, off, len);
    switch (scan.shape()) {
      case REFUSED -> Replies.refuse(req.response(), scan.id(), scan.problem());
      case BATCH -> BatchFlow.run(ctx, req, bytes, off, len);
      case MESSAGE -> {
        RequestSpan s =
            span.start(
                ctx.telemetry(), McpOperation.of(scan, req.headers()::get), req.headers()::get);
        message(ctx, req, body, scan, bytes, off, len, s);
      }
    }
  }

  private static void message(
      ProxyContext ctx,
      HttpServerRequest req,
      Buffer body,
      BodyScan scan,
      byte[] bytes,
      int off,
      int len,
      RequestSpan span) {
    boolean modern = Era.ofHeader(req.getHeader(HeaderNames.PROTOCOL_VERSION)) == Era.MODERN;
    if (scan.isToolsCall()) {
      CallPipeline.single(ctx, req, body, scan, bytes, off, len, modern, span);
      return;
    }
    Optional<CallReply.Refusal> refused = ctx.intake().check(scan, new RequestHeaders(req));
    if (refused.isPresent()) {
      span.error(refused.get().error().code().name());
      Replies.refuse(req.response(), refused.get());
      return;
    }
    // A client giving up on a dispatched call: the call learns of it, the notification goes on.
    ClientCancellation.notice(ctx, req, scan, bytes, off, len);
    MessageTap tap = null;
    if (scan.isRequestFor(Methods.TOOLS_LIST)) {
      tap =
          new LearnTap(
              ctx.intake().listings(),
              scan.id(),
              ctx.admission().listsEverything(req.headers()::get)
                  ? null
                  : tool -> ctx.admission().lists(tool, req.headers()::get));
    } else if (scan.isRequestFor(Methods.INITIALIZE) && !modern) {
      tap =
          new SessionTap(
              ctx.admission(), req.headers(), InitializeInfo.read(ctx.json(), bytes, off, len));
    }
    Forwarder.forward(
        ctx,
        req,
        body,
        scan.id(),
        new Relay.Mode(tap, modern, ctx.primes(req.getHeader(HeaderNames.PROTOCOL_VERSION))),
        ctx.upstreamTimeoutMs());
  }
}
