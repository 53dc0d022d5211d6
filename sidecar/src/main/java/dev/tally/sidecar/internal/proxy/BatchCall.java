package dev.tally.sidecar.internal.proxy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.gate.Decision;
import dev.tally.core.gate.InFlight;
import dev.tally.core.gate.TallyError;
import dev.tally.core.gate.ToolCall;
import dev.tally.core.mcp.ToolResults;
import dev.tally.sidecar.internal.rpc.ToolCallBody;
import dev.tally.sidecar.internal.stream.Delivery;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;

/**
 * One {@code tools/call} out of a batch: the same gate path as a single call ({@link
 * ToolCallFlow}), but its answer is collected for the merged response instead of being written to
 * the client. A dispatched call is its own upstream POST with its own {@code Idempotency-Key},
 * {@code _meta["dev.tally/executionId"]} and {@code traceparent}: one HTTP request carries one key.
 * Batches exist only in protocol 2025-03-26, so a vanished client never cancels the call.
 */
final class BatchCall {
  private final Proxy proxy;
  private final HttpServerRequest req;
  private final Context context;
  private final Promise<BatchAnswer> answer = Promise.promise();
  private ToolCallBody body;

  private BatchCall(Proxy proxy, HttpServerRequest req, Context context) {
    this.proxy = proxy;
    this.req = req;
    this.context = context;
  }

  /**
   * Runs the call in {@code len} bytes of {@code bytes} from {@code off}; the future always
   * succeeds.
   */
  static Future<BatchAnswer> run(
      Proxy proxy, HttpServerRequest req, Context context, byte[] bytes, int off, int len) {
    BatchCall c = new BatchCall(proxy, req, context);
    c.start(bytes, off, len);
    return c.answer.future();
  }

  private void start(byte[] bytes, int off, int len) {
    body = ToolCallBody.parse(proxy.json, bytes, off, len);
    if (body.error() != null) {
      TallyError.Code code =
          body.tooDeep() || body.error().startsWith("/") || body.error().startsWith("duplicate")
              ? TallyError.Code.INVALID_REQUEST
              : TallyError.Code.PARSE_ERROR;
      fail(code, "tools/call: " + body.error());
      return;
    }
    ToolCall call =
        new ToolCall(
            body.tool(),
            body.arguments(),
            body.meta(),
            body.continuation(),
            req.headers()::get,
            proxy.target);
    Future.fromCompletionStage(proxy.admission.admit(call), context)
        .onComplete(
            ar -> {
              if (ar.failed()) {
                fail(
                    TallyError.Code.STORE_UNAVAILABLE,
                    "the call could not be admitted now; nothing was sent, retry later");
              } else {
                render(ar.result(), bytes, off, len);
              }
            });
  }

  private void render(Decision d, byte[] bytes, int off, int len) {
    JsonNode id = body.id();
    DecisionRenderer.render(
        d,
        id,
        proxy,
        context,
        new DecisionRenderer.Target() {
          @Override
          public void passThrough() {
            BatchForward.send(proxy, req, bytes, off, len, id)
                .onComplete(ar -> answer.complete(ar.result()));
          }

          @Override
          public void dispatch(InFlight inFlight) {
            BatchCall.this.dispatch(inFlight);
          }

          @Override
          public void answer(byte[] message, Delivery delivery) {
            answer.complete(new BatchAnswer(message, delivery));
          }

          @Override
          public void refuse(TallyError error) {
            answer.complete(BatchAnswer.of(ToolResults.error(id, error)));
          }
        });
  }

  private void dispatch(InFlight inFlight) {
    DispatchTap tap = new DispatchTap(proxy, inFlight, body.id(), context);
    Buffer upstreamBody = Buffer.buffer(body.withExecutionId(proxy.json, inFlight.id().value()));
    UpstreamDispatch.send(
        proxy,
        context,
        req,
        HttpMethod.POST,
        inFlight,
        tap,
        upstreamBody,
        new UpstreamDispatch.Outcome() {
          @Override
          public void unreachable() {
            fail(
                TallyError.Code.UPSTREAM_UNAVAILABLE,
                "the upstream MCP server cannot be reached; nothing was sent");
          }

          @Override
          public void brokenAfterSend() {
            unknown();
          }

          @Override
          public void timedOut() {
            fail(
                TallyError.Code.UPSTREAM_TIMEOUT,
                "no answer from the upstream within upstream.timeout; the outcome is unknown");
          }

          @Override
          public void answered(HttpClientRequest up, HttpClientResponse resp, long timer) {
            AnswerReader.read(proxy, resp, body.id(), tap)
                .onComplete(
                    a -> {
                      context.owner().cancelTimer(timer);
                      if (a.result() != null) {
                        answer.tryComplete(a.result());
                      } else {
                        unknown();
                      }
                    });
          }
        });
  }

  private void unknown() {
    fail(
        TallyError.Code.UPSTREAM_UNAVAILABLE,
        "the upstream gave no answer after the call was sent; its outcome is unknown. A retry"
            + " with the same arguments reports the recorded outcome.");
  }

  private void fail(TallyError.Code code, String message) {
    answer.tryComplete(
        new BatchAnswer(ToolResults.error(body.id(), TallyError.of(code, message)), Delivery.NONE));
  }
}
