package dev.tally.sidecar.internal.proxy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.contract.DisconnectBehaviour;
import dev.tally.core.gate.Decision;
import dev.tally.core.gate.InFlight;
import dev.tally.core.gate.TallyError;
import dev.tally.core.gate.ToolCall;
import dev.tally.sidecar.internal.rpc.ModernHeaders;
import dev.tally.sidecar.internal.rpc.RequestScan;
import dev.tally.sidecar.internal.rpc.ToolCallBody;
import dev.tally.sidecar.internal.sse.SseEvent;
import dev.tally.sidecar.internal.sse.SseWriter;
import dev.tally.sidecar.internal.stream.Delivery;
import dev.tally.sidecar.internal.stream.StreamBuffer;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;

/**
 * One {@code tools/call}: parse it, validate 2026-07-28 headers, ask the gate, and render its
 * {@link Decision} (ARCHITECTURE.md §6–§7).
 */
final class ToolCallFlow {
  private final Proxy proxy;
  private final HttpServerRequest req;
  private final Buffer raw;
  private final boolean modern;
  private final Context context;
  private ToolCallBody body;

  private ToolCallFlow(Proxy proxy, HttpServerRequest req, Buffer raw, boolean modern) {
    this.proxy = proxy;
    this.req = req;
    this.raw = raw;
    this.modern = modern;
    this.context = Vertx.currentContext();
  }

  static void run(
      Proxy proxy,
      HttpServerRequest req,
      Buffer raw,
      byte[] bytes,
      int off,
      int len,
      boolean modern) {
    new ToolCallFlow(proxy, req, raw, modern).start(bytes, off, len);
  }

  /**
   * Sends a well-formed {@code tools/call} of a read-only tool straight to the upstream, untouched,
   * without building a tree or asking the gate; returns {@code false} when the call needs {@link
   * #run} instead. The decision is the gate's own ({@code Gate.admit}: the contract resolved by
   * configuration, then learned annotations, then the default, is {@code read_only}), so nothing
   * that the gate would record passes here. 2026-07-28 headers are validated as on the full path; a
   * tool with {@code Mcp-Param-*} headers takes the full path (its checks need the arguments).
   */
  static boolean passThroughIfReadOnly(
      Proxy proxy, HttpServerRequest req, Buffer raw, RequestScan scan, boolean modern) {
    RequestScan.Call call = scan.call();
    if (call == null || !proxy.admission.contracts().resolve(call.tool()).isReadOnly()) {
      return false;
    }
    if (modern) {
      if (!proxy.schemas.forTool(call.tool()).isEmpty()) {
        return false;
      }
      MultiMap headers = req.headers();
      String mismatch =
          ModernHeaders.checkNameAndVersion(
              headers::get,
              call.tool(),
              call.metaProtocolVersion(),
              headers.get("MCP-Protocol-Version"));
      if (mismatch != null) {
        Replies.refuse(req.response(), scan.id(), TallyError.Code.HEADER_MISMATCH, mismatch);
        return true;
      }
    }
    Forwarder.forward(
        proxy,
        req,
        raw,
        scan.id(),
        new Relay.Mode(null, modern, PostFlow.primingFor(proxy, req, modern)),
        proxy.options.upstreamTimeout().toMillis());
    return true;
  }

  private void start(byte[] bytes, int off, int len) {
    body = ToolCallBody.parse(proxy.json, bytes, off, len);
    if (body.error() != null) {
      TallyError.Code code =
          body.tooDeep() || body.error().startsWith("/")
              ? TallyError.Code.INVALID_REQUEST
              : TallyError.Code.PARSE_ERROR;
      if (body.error().equals("duplicate object key")) {
        code = TallyError.Code.INVALID_REQUEST;
      }
      Replies.refuse(req.response(), body.id(), code, "tools/call: " + body.error());
      return;
    }
    MultiMap headers = req.headers();
    if (modern) {
      String mismatch =
          ModernHeaders.checkToolCall(
              headers::get, body, proxy.schemas, headers.get("MCP-Protocol-Version"));
      if (mismatch != null) {
        Replies.refuse(req.response(), body.id(), TallyError.Code.HEADER_MISMATCH, mismatch);
        return;
      }
    }
    ToolCall call =
        new ToolCall(
            body.tool(),
            body.arguments(),
            body.meta(),
            body.continuation(),
            headers::get,
            proxy.target);
    Future.fromCompletionStage(proxy.admission.admit(call), context)
        .onComplete(
            ar -> {
              if (ar.failed()) {
                Replies.refuse(
                    req.response(),
                    body.id(),
                    TallyError.Code.STORE_UNAVAILABLE,
                    "the call could not be admitted now; nothing was sent, retry later");
              } else {
                render(ar.result());
              }
            });
  }

  private void render(Decision d) {
    JsonNode id = body.id();
    DecisionRenderer.render(
        d,
        id,
        proxy,
        context,
        new DecisionRenderer.Target() {
          @Override
          public void passThrough() {
            Forwarder.forward(
                proxy, req, raw, id, new Relay.Mode(null, modern, priming()), idleMs());
          }

          @Override
          public void dispatch(InFlight inFlight) {
            ToolCallFlow.this.dispatch(inFlight);
          }

          @Override
          public void answer(byte[] message, Delivery delivery) {
            ToolCallFlow.this.answer(message, delivery);
          }

          @Override
          public void refuse(TallyError error) {
            Replies.refuse(req.response(), id, error);
          }
        });
  }

  /** A complete answer from Tally, as JSON or as a one-event SSE stream like the upstream's. */
  private void answer(byte[] bytes, Delivery delivery) {
    HttpServerResponse resp = req.response();
    String accept = req.getHeader(HttpHeaders.ACCEPT);
    boolean sse =
        proxy.toolCallsAnswerSse() && MediaTypes.accepts(accept, MediaTypes.SSE)
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
    StreamBuffer b = proxy.streams.open(req.getHeader("Mcp-Session-Id"));
    resp.setStatusCode(200).setChunked(true);
    resp.headers()
        .set(HttpHeaders.CONTENT_TYPE, Replies.EVENT_STREAM)
        .set("Cache-Control", "no-cache")
        .set("X-Accel-Buffering", "no");
    if (priming()) {
      resp.write(Buffer.buffer(SseWriter.priming(b.primingId())));
    }
    ResponseSink sink = new ResponseSink(resp);
    b.attach(sink);
    resp.closeHandler(v -> b.detach(sink));
    b.append(SseEvent.data(bytes), delivery);
    b.end();
  }

  private void dispatch(InFlight inFlight) {
    DispatchTap tap = new DispatchTap(proxy, inFlight, body.id(), context);
    boolean cancel = modern && inFlight.contract().onDisconnect() == DisconnectBehaviour.CANCEL;
    Buffer upstreamBody = Buffer.buffer(body.withExecutionId(proxy.json, inFlight.id().value()));
    UpstreamDispatch.send(
        proxy,
        context,
        req,
        req.method(),
        inFlight,
        tap,
        upstreamBody,
        new UpstreamDispatch.Outcome() {
          @Override
          public void unreachable() {
            Forwarder.unreachable(req, body.id());
          }

          @Override
          public void brokenAfterSend() {
            Replies.refuse(
                req.response(),
                body.id(),
                TallyError.Code.UPSTREAM_UNAVAILABLE,
                "the upstream broke the connection after the call was sent; its outcome is"
                    + " unknown");
          }

          @Override
          public void timedOut() {
            Replies.refuse(
                req.response(),
                body.id(),
                TallyError.Code.UPSTREAM_TIMEOUT,
                "no answer from the upstream within upstream.timeout; the outcome is unknown");
          }

          @Override
          public void answered(HttpClientRequest up, HttpClientResponse resp, long timer) {
            relayDispatch(tap, up, resp, cancel, timer);
          }

          @Override
          public void sending(HttpClientRequest up) {
            if (cancel) {
              cancelOnClientClose(up, tap);
            }
          }
        });
  }

  /**
   * A 2026-07-28 client that closes its response stream cancels a tool whose contract says {@code
   * cancel}: reset the upstream request at once, also while the upstream has not answered yet (the
   * relay takes over once it has). The broken request then records the outcome as unknown.
   */
  private void cancelOnClientClose(HttpClientRequest up, DispatchTap tap) {
    HttpServerResponse resp = req.response();
    resp.closeHandler(
        v -> {
          if (!resp.ended() && !tap.settled()) {
            up.reset();
          }
        });
  }

  private void relayDispatch(
      DispatchTap tap,
      HttpClientRequest up,
      HttpClientResponse upResp,
      boolean cancel,
      long timer) {
    MessageTap timed =
        new MessageTap() {
          @Override
          public void onHead(int status, boolean sse) {
            tap.onHead(status, sse);
          }

          @Override
          public Future<Delivery> onMessage(byte[] message) {
            Future<Delivery> f = tap.onMessage(message);
            if (tap.settled()) {
              context.owner().cancelTimer(timer);
            }
            return f;
          }

          @Override
          public boolean settled() {
            return tap.settled();
          }

          @Override
          public void onEnd() {
            context.owner().cancelTimer(timer);
            tap.onEnd();
          }

          @Override
          public void onFailure(String reason) {
            context.owner().cancelTimer(timer);
            tap.onFailure(reason);
          }
        };
    boolean sse =
        MediaTypes.SSE.equals(MediaTypes.essence(upResp.getHeader(HttpHeaders.CONTENT_TYPE)));
    if (sse) {
      timed.onHead(upResp.statusCode(), true);
      tap.stream(
          SseRelay.start(proxy, req, up, upResp, new Relay.Mode(timed, cancel, priming()), null));
    } else {
      Relay.relay(proxy, req, up, upResp, new Relay.Mode(timed, cancel, false), null);
    }
  }

  private boolean priming() {
    return PostFlow.primingFor(proxy, req, modern);
  }

  private long idleMs() {
    return proxy.options.upstreamTimeout().toMillis();
  }
}
