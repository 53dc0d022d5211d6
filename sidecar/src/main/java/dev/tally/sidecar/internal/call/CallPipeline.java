package dev.tally.sidecar.internal.call;

import dev.tally.core.call.CallReply;
import dev.tally.core.mcp.BodyScan;
import dev.tally.core.observe.RequestSpan;
import dev.tally.sidecar.internal.context.ProxyContext;
import dev.tally.sidecar.internal.http.RequestHeaders;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;

/**
 * The sidecar's one call pipeline: a {@code tools/call} (alone, or one element of a batch) goes to
 * core's {@link dev.tally.core.call.CallIntake}, and the {@link CallReply} that comes back is
 * carried out through an {@link AnswerPort}; a single call and a batch element differ only in the
 * port.
 *
 * <p>The path of one side-effecting call, from the socket to the store and back, one file after the
 * other: {@code McpListener} (the socket) → {@code McpHandler} (endpoint, host, origin, method) →
 * {@code PostFlow} (media types, body, core's {@code BodyClassifier}) → this class → core ({@code
 * CallIntake}: {@code ToolCallReader}, {@code HeaderRules}, the {@code Gate} and its store, {@code
 * DecisionWalk}) → {@link ClientPort} → {@link Dispatcher} → {@code UpstreamExchange} ({@code
 * Upstream}) → {@code Relay} / {@code SseRelay} → {@link DispatchTap} → core's {@code
 * DispatchRecorder} (the store) → back in the relay, the answer goes to the client ({@code
 * StreamBuffer}). No step calls back into a file the call already left: each hands a value (a
 * {@code CallReply}, a response) forward.
 */
public final class CallPipeline {
  private CallPipeline() {}

  /**
   * Runs a single {@code tools/call}, the whole body {@code body} of {@code req} ({@code len} bytes
   * of {@code b} from {@code off}), answering on the client's response.
   */
  public static void single(
      ProxyContext ctx,
      HttpServerRequest req,
      Buffer body,
      BodyScan scan,
      byte[] b,
      int off,
      int len,
      boolean modern,
      RequestSpan span) {
    run(ctx, scan, b, off, len, req, new ClientPort(ctx, req, body, scan.id(), modern), span);
  }

  /**
   * Runs the {@code tools/call} in {@code len} bytes of {@code b} from {@code off}, which the
   * classifier found to be {@code scan}, for the client's {@code req}, answering through {@code
   * port}.
   */
  static void run(
      ProxyContext ctx,
      BodyScan scan,
      byte[] b,
      int off,
      int len,
      HttpServerRequest req,
      AnswerPort port) {
    run(ctx, scan, b, off, len, req, port, RequestSpan.NONE);
  }

  /**
   * As {@link #run(ProxyContext, BodyScan, byte[], int, int, HttpServerRequest, AnswerPort)}, on
   * {@code span}.
   */
  static void run(
      ProxyContext ctx,
      BodyScan scan,
      byte[] b,
      int off,
      int len,
      HttpServerRequest req,
      AnswerPort port,
      RequestSpan span) {
    Future.fromCompletionStage(
            ctx.intake().admit(scan, b, off, len, new RequestHeaders(req), span),
            Vertx.currentContext())
        .onComplete(
            ar -> {
              // The stage never fails (core turns a store failure into a refusal).
              CallReply reply = ar.result();
              if (reply instanceof CallReply.Forward) {
                port.forward();
              } else if (reply instanceof CallReply.Dispatch d) {
                port.dispatch(d);
              } else if (reply instanceof CallReply.Answer a) {
                port.answer(a.message(), a.delivery());
              } else {
                port.refuse((CallReply.Refusal) reply);
              }
            });
  }
}
