package dev.tally.sidecar.internal.call;

import dev.tally.core.call.CallReply;
import dev.tally.core.mcp.BatchElement;
import dev.tally.core.mcp.BatchMerger;
import dev.tally.core.mcp.BatchSplit;
import dev.tally.core.mcp.BatchSplitter;
import dev.tally.core.mcp.McpNames;
import dev.tally.core.mcp.McpNames.HeaderNames;
import dev.tally.core.mcp.TallyError;
import dev.tally.core.mcp.ToolResults;
import dev.tally.core.observe.McpOperation;
import dev.tally.core.observe.RequestSpan;
import dev.tally.sidecar.internal.context.ProxyContext;
import dev.tally.sidecar.internal.http.Replies;
import dev.tally.sidecar.internal.http.RequestHeaders;
import io.vertx.core.Future;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A POST whose body is a JSON-RPC batch (docs/tool-results.md, "Batches"): protocol 2025-03-26
 * only, split by core's {@link BatchSplitter}. Notifications and client responses are forwarded
 * first, singly and in order; then each {@code tools/call} takes the one {@link CallPipeline} with
 * a {@link SlotPort} and every other request is forwarded singly, all concurrently; bad elements
 * get their own error. The client gets one JSON array holding a response per request, in request
 * order, and each dispatched execution records {@code delivered} (or {@code
 * completed_not_delivered}) only once that array was written (or could not be). Each request and
 * notification has its own span, as if it had been POSTed alone (the MCP semantic conventions
 * define spans per message, none per batch); they end when the array was written.
 */
public final class BatchFlow {
  private BatchFlow() {}

  /** Runs the batch in {@code len} bytes of {@code bytes} from {@code off}. */
  public static void run(ProxyContext ctx, HttpServerRequest req, byte[] bytes, int off, int len) {
    TallyError era = BatchSplitter.refusalFor(req.getHeader(HeaderNames.PROTOCOL_VERSION));
    if (era != null) {
      Replies.refuse(req.response(), null, era);
      return;
    }
    BatchSplit split = ctx.batches().split(bytes, off, len);
    if (split.refused()) {
      Replies.refuse(req.response(), null, split.error());
      return;
    }
    List<BatchElement> elements = split.elements();
    // One span per message (the MCP conventions: an HTTP request may carry several MCP messages),
    // each a child of the HTTP request's context, all ended once the merged answer was written.
    List<RequestSpan> spans = new ArrayList<>(elements.size());
    // Notifications and responses first, in order (notifications/initialized before a request).
    Future<BatchSlot> first = Future.succeededFuture();
    for (BatchElement e : elements) {
      if (e.kind() == BatchElement.Kind.NOTIFICATION || e.kind() == BatchElement.Kind.RESPONSE) {
        first = first.compose(v -> start(ctx, req, bytes, e, spans));
      }
    }
    first.onComplete(
        v -> {
          // Then every request at once: the gate decides the batch's calls concurrently.
          List<Future<BatchSlot>> parts = new ArrayList<>(elements.size());
          for (BatchElement e : elements) {
            boolean answered =
                e.kind() != BatchElement.Kind.NOTIFICATION
                    && e.kind() != BatchElement.Kind.RESPONSE;
            parts.add(
                answered
                    ? start(ctx, req, bytes, e, spans)
                    : Future.succeededFuture(BatchSlot.NONE));
          }
          Future.join(parts).onComplete(w -> write(req.response(), parts, spans));
        });
  }

  private static Future<BatchSlot> start(
      ProxyContext ctx,
      HttpServerRequest req,
      byte[] bytes,
      BatchElement e,
      List<RequestSpan> spans) {
    if (e.kind() == BatchElement.Kind.INVALID) {
      return Future.succeededFuture(BatchSlot.of(ToolResults.error(e.id(), e.error())));
    }
    RequestSpan span = RequestSpan.NONE;
    if (e.kind() != BatchElement.Kind.RESPONSE) {
      span =
          ctx.telemetry()
              .request(McpOperation.of(e.scan(), req.headers()::get), req.headers()::get);
      spans.add(span);
    }
    boolean request =
        e.kind() == BatchElement.Kind.REQUEST || e.kind() == BatchElement.Kind.TOOLS_CALL;
    SlotPort port =
        new SlotPort(
            ctx,
            req,
            bytes,
            e.offset(),
            e.length(),
            request ? e.id() : null,
            McpNames.Methods.TOOLS_LIST.equals(e.method())
                ? new LearnTap(
                    ctx.intake().listings(),
                    e.id(),
                    ctx.admission().listsEverything(req.headers()::get)
                        ? null
                        : tool -> ctx.admission().lists(tool, req.headers()::get))
                : null);
    if (e.kind() == BatchElement.Kind.TOOLS_CALL) {
      CallPipeline.run(ctx, e.scan(), bytes, e.offset(), e.length(), req, port, span);
      return port.slot();
    }
    Optional<CallReply.Refusal> refused = ctx.intake().check(e.scan(), new RequestHeaders(req));
    if (refused.isPresent()) {
      span.error(refused.get().error().code().name());
      port.refuse(refused.get());
    } else {
      ClientCancellation.notice(ctx, req, e.scan(), bytes, e.offset(), e.length());
      port.forward();
    }
    return port.slot();
  }

  /** Writes the merged answer, then tells every element whether it reached the client. */
  private static void write(
      HttpServerResponse resp, List<Future<BatchSlot>> parts, List<RequestSpan> spans) {
    List<BatchSlot> slots = new ArrayList<>(parts.size());
    List<byte[]> messages = new ArrayList<>(parts.size());
    for (Future<BatchSlot> f : parts) {
      BatchSlot s = f.succeeded() ? f.result() : BatchSlot.NONE;
      slots.add(s);
      messages.add(s.message());
    }
    byte[] merged = BatchMerger.merge(messages);
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
          for (BatchSlot s : slots) {
            s.delivery().written(w.succeeded());
          }
          int status = w.succeeded() ? resp.getStatusCode() : 0;
          for (RequestSpan s : spans) {
            s.end(status);
          }
        });
  }
}
