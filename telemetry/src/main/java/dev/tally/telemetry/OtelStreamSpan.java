package dev.tally.telemetry;

import dev.tally.core.observe.RequestSpan;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A GET on the MCP endpoint as an OpenTelemetry server span: a standalone server-to-client stream
 * ({@code tally.stream listen}) or a resumption with {@code Last-Event-ID} ({@code tally.stream
 * resume}), from the request until the stream ended or its client went away. A GET carries no
 * JSON-RPC message, so the MCP conventions' names ({@code mcp.method.name}) and {@code
 * mcp.server.operation.duration} do not apply; {@code mcp.protocol.version} and {@code
 * mcp.session.id} do. It has no steps.
 */
final class OtelStreamSpan implements RequestSpan {
  static final AttributeKey<String> STREAM = AttributeKey.stringKey("tally.stream");

  private final Span span;
  private final AtomicBoolean ended = new AtomicBoolean();
  private volatile String errorType;

  OtelStreamSpan(
      Tracer tracer, Context parent, boolean resume, String protocolVersion, String sessionId) {
    String kind = resume ? "resume" : "listen";
    var b =
        tracer
            .spanBuilder("tally.stream " + kind)
            .setParent(parent)
            .setSpanKind(SpanKind.SERVER)
            .setAttribute(STREAM, kind);
    if (protocolVersion != null) {
      b.setAttribute(OtelMeter.VERSION, protocolVersion);
    }
    if (sessionId != null) {
      b.setAttribute(OtelRequestSpan.SESSION, sessionId);
    }
    this.span = b.startSpan();
  }

  @Override
  public Step step(StepKind step) {
    return RequestSpan.NONE.step(step);
  }

  @Override
  public void decision(String decision) {}

  @Override
  public void execution(String executionId, String state) {}

  @Override
  public void error(String type) {
    this.errorType = type;
  }

  @Override
  public void end(int httpStatus) {
    if (!ended.compareAndSet(false, true)) {
      return;
    }
    OtelRequestSpan.endSpan(span, OtelRequestSpan.errorType(errorType, httpStatus));
  }
}
