package dev.tally.sidecar.internal.proxy;

import dev.tally.core.gate.TallyError;
import dev.tally.core.mcp.ToolResults;
import dev.tally.sidecar.internal.rpc.JsonRpc;
import dev.tally.sidecar.internal.rpc.ModernHeaders;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.util.ArrayList;
import java.util.List;

/**
 * A POST whose body is a JSON-RPC batch (docs/tool-results.md, "Batches"). Batches belong to
 * protocol 2025-03-26 only (removed in 2025-06-18); later versions are refused. A batch is split:
 * notifications and client responses are forwarded first, singly and in order; then each {@code
 * tools/call} goes through the gate on its own ({@link BatchCall}) and every other request is
 * forwarded singly ({@link BatchForward}), all concurrently; bad elements get their own error. The
 * client gets one JSON array holding a response per request, in request order, and each dispatched
 * execution records {@code delivered} (or {@code completed_not_delivered}) only once that array was
 * written (or could not be).
 */
final class BatchFlow {
  /** The first protocol version without JSON-RPC batching. */
  static final String NO_BATCH_VERSION = "2025-06-18";

  private BatchFlow() {}

  /** Whether {@code body} starts (after JSON whitespace) with {@code [}. */
  static boolean isBatch(byte[] bytes, int off, int len) {
    for (int i = off; i < off + len; i++) {
      byte b = bytes[i];
      if (b == '[') {
        return true;
      }
      if (b != ' ' && b != '\t' && b != '\n' && b != '\r') {
        return false;
      }
    }
    return false;
  }

  static void run(Proxy proxy, HttpServerRequest req, Buffer body) {
    String version = req.getHeader("MCP-Protocol-Version");
    if (ModernHeaders.isModern(version)
        || version != null && version.compareTo(NO_BATCH_VERSION) >= 0) {
      Replies.refuse(
          req.response(),
          null,
          TallyError.Code.INVALID_REQUEST,
          "JSON-RPC batches are not part of MCP protocol versions from "
              + NO_BATCH_VERSION
              + " on (MCP-Protocol-Version names a later one); send each message as its own"
              + " request");
      return;
    }
    byte[] bytes = body.getBytes();
    BatchSplit split = proxy.batches.split(bytes);
    if (split.refused()) {
      Replies.refuse(req.response(), null, split.code(), split.error());
      return;
    }
    Context context = Vertx.currentContext();
    List<BatchElement> elements = split.elements();
    // Notifications and responses first, in order (notifications/initialized before a request).
    Future<Void> first = Future.succeededFuture();
    for (BatchElement e : elements) {
      if (e.kind() == BatchElement.Kind.NOTIFICATION || e.kind() == BatchElement.Kind.RESPONSE) {
        first =
            first.compose(
                v -> BatchForward.send(proxy, req, bytes, e.offset(), e.length(), null).mapEmpty());
      }
    }
    first.onComplete(
        v -> {
          // Then every request at once: the gate decides the batch's calls concurrently.
          List<Future<BatchAnswer>> parts = new ArrayList<>(elements.size());
          for (BatchElement e : elements) {
            parts.add(start(proxy, req, context, bytes, e));
          }
          Future.join(parts).onComplete(w -> write(req.response(), parts));
        });
  }

  private static Future<BatchAnswer> start(
      Proxy proxy, HttpServerRequest req, Context context, byte[] bytes, BatchElement e) {
    return switch (e.kind()) {
      case TOOLS_CALL -> BatchCall.run(proxy, req, context, bytes, e.offset(), e.length());
      case INVALID ->
          Future.succeededFuture(
              BatchAnswer.of(
                  ToolResults.error(
                      e.id(), TallyError.of(TallyError.Code.INVALID_REQUEST, e.error()))));
      case REQUEST ->
          BatchForward.send(
              proxy,
              req,
              bytes,
              e.offset(),
              e.length(),
              e.id(),
              JsonRpc.TOOLS_LIST.equals(e.method()) ? new LearnTap(proxy, e.id()) : null);
      case NOTIFICATION, RESPONSE -> Future.succeededFuture(BatchAnswer.NONE);
    };
  }

  /** Writes the merged answer, then tells every element whether it reached the client. */
  private static void write(HttpServerResponse resp, List<Future<BatchAnswer>> parts) {
    List<BatchAnswer> answers = new ArrayList<>(parts.size());
    for (Future<BatchAnswer> f : parts) {
      answers.add(f.succeeded() ? f.result() : null);
    }
    byte[] merged = BatchMerger.merge(answers);
    Future<Void> written;
    if (merged == null) {
      written =
          resp.closed() || resp.ended()
              ? Future.failedFuture("client gone")
              : resp.setStatusCode(202).end();
    } else {
      written = Replies.json(resp, 200, merged);
    }
    written.onComplete(
        w -> {
          for (BatchAnswer a : answers) {
            if (a != null) {
              a.delivery().written(w.succeeded());
            }
          }
        });
  }
}
