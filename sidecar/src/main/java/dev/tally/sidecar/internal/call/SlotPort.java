package dev.tally.sidecar.internal.call;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.call.CallReply;
import dev.tally.core.call.Delivery;
import dev.tally.core.call.DispatchRecorder;
import dev.tally.core.mcp.MediaTypes;
import dev.tally.core.mcp.RpcResponseWatcher;
import dev.tally.core.mcp.TallyError;
import dev.tally.core.mcp.ToolResults;
import dev.tally.sidecar.internal.context.ProxyContext;
import dev.tally.sidecar.internal.relay.MessageReader;
import dev.tally.sidecar.internal.relay.MessageTap;
import dev.tally.sidecar.internal.upstream.UpstreamExchange;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;

/**
 * The answer of one element of a split batch goes into its slot of the merged array. A forwarded
 * element is its own POST with the client's headers (session, protocol version, authorization), a
 * dispatched call its own POST with its own {@code Idempotency-Key}: one HTTP request carries one
 * key, and some upstreams refuse batches (the MCP Java SDK answers 400). The upstream's answer is
 * read whole ({@link MessageReader}); other messages on its stream (progress notifications,
 * server-to-client requests) have no place in a merged answer and are dropped
 * (docs/tool-results.md, "Batches"). The slot's future always succeeds.
 */
final class SlotPort implements AnswerPort {
  private final ProxyContext ctx;
  private final HttpServerRequest req;
  private final byte[] bytes;
  private final int off;
  private final int len;
  private final JsonNode id;
  private final MessageTap tap;
  private final Context context = Vertx.currentContext();
  private final Promise<BatchSlot> slot = Promise.promise();

  /**
   * The slot of the element in {@code len} bytes of {@code bytes} from {@code off}, with request id
   * {@code id} ({@code null}: a notification or response, which gets no answer); {@code tap} (may
   * be null) sees a forwarded element's answer.
   */
  SlotPort(
      ProxyContext ctx,
      HttpServerRequest req,
      byte[] bytes,
      int off,
      int len,
      JsonNode id,
      MessageTap tap) {
    this.ctx = ctx;
    this.req = req;
    this.bytes = bytes;
    this.off = off;
    this.len = len;
    this.id = id;
    this.tap = tap;
  }

  Future<BatchSlot> slot() {
    return slot.future();
  }

  @Override
  public void forward() {
    UpstreamExchange.send(
        ctx.upstream(),
        new UpstreamExchange.Request(
            HttpMethod.POST,
            req.query(),
            req.headers(),
            Buffer.buffer().appendBytes(bytes, off, len),
            false,
            ctx.upstreamTimeoutMs()),
        null,
        new UpstreamExchange.Listener() {
          @Override
          public void unreachable() {
            error(DispatchRecorder.UNREACHABLE);
          }

          @Override
          public void broke(boolean timeout) {
            error(
                TallyError.of(
                    timeout
                        ? TallyError.Code.UPSTREAM_TIMEOUT
                        : TallyError.Code.UPSTREAM_UNAVAILABLE,
                    timeout
                        ? "no answer from the upstream MCP server within upstream.timeout"
                        : "the upstream MCP server broke the connection before answering"));
          }

          @Override
          public void response(HttpClientRequest up, HttpClientResponse resp) {
            readForwarded(resp);
          }
        });
  }

  private void readForwarded(HttpClientResponse resp) {
    int status = resp.statusCode();
    MessageReader.read(
        resp,
        ctx.options().maxResponseBytes(),
        ctx.options().upstreamTimeout(),
        new MessageReader.Sink() {
          @Override
          public void message(byte[] message) {
            if (id != null && RpcResponseWatcher.outcomeOf(message, id) != null) {
              byte[] shown = message;
              if (tap != null) {
                tap.onMessage(message);
                shown = tap.rewrite(message);
              }
              slot.tryComplete(BatchSlot.of(shown));
            }
          }

          @Override
          public void end(MessageReader.Failure failure) {
            if (id == null) {
              slot.tryComplete(BatchSlot.NONE);
            } else if (failure != null) {
              error(failure.error());
            } else {
              error(
                  TallyError.of(
                      TallyError.Code.UPSTREAM_UNAVAILABLE,
                      "the upstream MCP server answered HTTP "
                          + status
                          + " without a JSON-RPC response to this request"));
            }
          }
        });
  }

  @Override
  public void dispatch(CallReply.Dispatch d) {
    DispatchTap dispatchTap = new DispatchTap(ctx, d.recorder(), context);
    Dispatcher.send(
        ctx,
        req,
        d,
        dispatchTap,
        new Dispatcher.Outcome() {
          @Override
          public void told(CallReply told) {
            complete(told);
          }

          @Override
          public void response(HttpClientRequest up, HttpClientResponse resp) {
            readDispatched(dispatchTap, resp);
          }
        });
  }

  private void readDispatched(DispatchTap dispatchTap, HttpClientResponse resp) {
    dispatchTap.onHead(
        resp.statusCode(), MediaTypes.isSse(resp.getHeader(HttpHeaders.CONTENT_TYPE)));
    MessageReader.read(
        resp,
        ctx.options().maxResponseBytes(),
        ctx.options().upstreamTimeout(),
        new MessageReader.Sink() {
          private boolean answered;

          @Override
          public void message(byte[] message) {
            if (answered) {
              return;
            }
            Future<Delivery> hold = dispatchTap.onMessage(message);
            if (hold != null) {
              answered = true;
              hold.onComplete(
                  ar -> {
                    Delivery delivery =
                        ar.succeeded() && ar.result() != null ? ar.result() : Delivery.NONE;
                    slot.tryComplete(new BatchSlot(message, delivery));
                  });
            }
          }

          @Override
          public void end(MessageReader.Failure failure) {
            CallReply told =
                failure == null ? dispatchTap.ended() : dispatchTap.failed(failure.reason());
            if (!answered) {
              if (told != null) {
                complete(told);
              } else {
                error(NO_ANSWER);
              }
            }
          }
        });
  }

  @Override
  public void answer(byte[] message, Delivery delivery) {
    slot.tryComplete(new BatchSlot(message, delivery));
  }

  @Override
  public void refuse(CallReply.Refusal refusal) {
    // JSON-RPC 2.0 §6: nothing is answered for a notification or a client's response.
    slot.tryComplete(id == null ? BatchSlot.NONE : BatchSlot.of(refusal.message()));
  }

  /** What a slot holds when the upstream's answerless response stands (an HTTP 4xx). */
  private static final TallyError NO_ANSWER =
      TallyError.of(
          TallyError.Code.UPSTREAM_UNAVAILABLE,
          "the upstream MCP server answered without a JSON-RPC response to this request");

  private void complete(CallReply told) {
    slot.tryComplete(id == null ? BatchSlot.NONE : BatchSlot.of(CallReplies.message(told)));
  }

  private void error(TallyError error) {
    slot.tryComplete(id == null ? BatchSlot.NONE : BatchSlot.of(ToolResults.error(id, error)));
  }
}
