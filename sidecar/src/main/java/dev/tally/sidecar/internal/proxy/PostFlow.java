package dev.tally.sidecar.internal.proxy;

import dev.tally.core.gate.TallyError;
import dev.tally.sidecar.internal.rpc.JsonRpc;
import dev.tally.sidecar.internal.rpc.ModernHeaders;
import dev.tally.sidecar.internal.rpc.RequestScan;
import io.netty.buffer.ByteBuf;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.internal.buffer.BufferInternal;

/**
 * A POST to the MCP endpoint: transport checks (media types, size), a streaming scan for the
 * method, then {@code tools/call} to the gate and everything else straight through.
 */
final class PostFlow {
  /** The first protocol version whose clients expect a priming event. */
  static final String PRIMING_VERSION = "2025-11-25";

  private PostFlow() {}

  static void run(Proxy proxy, HttpServerRequest req) {
    if (!MediaTypes.JSON.equals(MediaTypes.essence(req.getHeader(HttpHeaders.CONTENT_TYPE)))) {
      Replies.refuse(
          req.response(),
          null,
          TallyError.Code.UNSUPPORTED_MEDIA_TYPE,
          "POST requires Content-Type: application/json");
      return;
    }
    String accept = req.getHeader(HttpHeaders.ACCEPT);
    if (!MediaTypes.accepts(accept, MediaTypes.JSON)
        || !MediaTypes.accepts(accept, MediaTypes.SSE)) {
      Replies.refuse(
          req.response(),
          null,
          TallyError.Code.NOT_ACCEPTABLE,
          "POST requires an Accept header listing application/json and text/event-stream");
      return;
    }
    BodyReader.read(req, proxy.options.maxRequestBytes())
        .onComplete(
            ar -> {
              if (ar.succeeded()) {
                route(proxy, req, ar.result());
              }
            });
  }

  private static void route(Proxy proxy, HttpServerRequest req, Buffer body) {
    // Scan the received bytes in place (no copy) when the buffer is heap-backed.
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
    if (BatchFlow.isBatch(bytes, off, len)) {
      BatchFlow.run(proxy, req, body);
      return;
    }
    // Scan the whole top-level object: a duplicate "method" later in the body must not slip by.
    RequestScan scan = proxy.requests.scan(bytes, off, len, false);
    if (scan.shape() == RequestScan.Shape.INVALID) {
      Replies.refuse(
          req.response(),
          null,
          scan.tooDeep() ? TallyError.Code.INVALID_REQUEST : TallyError.Code.PARSE_ERROR,
          scan.error());
      return;
    }
    boolean modern = ModernHeaders.isModern(req.getHeader("MCP-Protocol-Version"));
    if (modern && scan.method() != null) {
      String mismatch = ModernHeaders.checkMethod(req.getHeader("Mcp-Method"), scan.method());
      if (mismatch != null) {
        Replies.refuse(req.response(), scan.id(), TallyError.Code.HEADER_MISMATCH, mismatch);
        return;
      }
    }
    if (scan.isToolsCall()) {
      if (!ToolCallFlow.passThroughIfReadOnly(proxy, req, body, scan, modern)) {
        ToolCallFlow.run(proxy, req, body, bytes, off, len, modern);
      }
      return;
    }
    MessageTap tap = null;
    if (JsonRpc.TOOLS_LIST.equals(scan.method()) && scan.id() != null) {
      tap = new LearnTap(proxy, scan.id());
    } else if (JsonRpc.INITIALIZE.equals(scan.method()) && !modern) {
      tap = SessionTap.forInitialize(proxy, req, bytes, off, len);
    }
    Forwarder.forward(
        proxy,
        req,
        body,
        scan.id(),
        new Relay.Mode(tap, modern, primingFor(proxy, req, modern)),
        idle(proxy));
  }

  private static long idle(Proxy proxy) {
    return proxy.options.upstreamTimeout().toMillis();
  }

  /**
   * Priming events go to legacy-era clients at 2025-11-25 or later (older clients may not expect an
   * event without data), when enabled.
   */
  static boolean primingFor(Proxy proxy, HttpServerRequest req, boolean modern) {
    if (modern || !proxy.options.primingEvents()) {
      return false;
    }
    String v = req.getHeader("MCP-Protocol-Version");
    return v != null && v.compareTo(PRIMING_VERSION) >= 0;
  }
}
