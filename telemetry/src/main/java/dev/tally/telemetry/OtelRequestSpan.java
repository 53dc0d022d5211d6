package dev.tally.telemetry;

import dev.tally.core.observe.McpOperation;
import dev.tally.core.observe.RequestSpan;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One MCP request as an OpenTelemetry server span with the MCP semantic conventions' attributes,
 * its steps as children (admit and complete internal, dispatch a client span named like the
 * request); ending it records {@code mcp.server.operation.duration}. When nothing is exported
 * ({@code tracer} null) only the duration is recorded and the steps' {@code traceparent} comes from
 * {@code untraced}.
 */
final class OtelRequestSpan implements RequestSpan {
  static final AttributeKey<String> SESSION = AttributeKey.stringKey("mcp.session.id");
  static final AttributeKey<String> REQUEST_ID = AttributeKey.stringKey("jsonrpc.request.id");
  static final AttributeKey<String> EXECUTION = AttributeKey.stringKey("tally.execution.id");
  static final AttributeKey<String> STEP = AttributeKey.stringKey("tally.step");

  private final McpOperation op;
  private final OtelMeter meter;
  private final Tracer tracer;
  private final Span span;
  private final Context context;
  private final RequestSpan untraced;
  private final long start = System.nanoTime();
  private final AtomicBoolean ended = new AtomicBoolean();
  private volatile String errorType;

  OtelRequestSpan(
      McpOperation op, OtelMeter meter, Tracer tracer, Context parent, RequestSpan untraced) {
    this.op = op;
    this.meter = meter;
    this.tracer = tracer;
    this.untraced = untraced;
    if (tracer == null) {
      this.span = Span.getInvalid();
      this.context = parent;
      return;
    }
    var b =
        tracer
            .spanBuilder(op.spanName())
            .setParent(parent)
            .setSpanKind(SpanKind.SERVER)
            .setAttribute(OtelMeter.METHOD, op.method());
    if (op.tool() != null) {
      b.setAttribute(OtelMeter.TOOL, op.tool());
    }
    if (op.protocolVersion() != null) {
      b.setAttribute(OtelMeter.VERSION, op.protocolVersion());
    }
    if (op.sessionId() != null) {
      b.setAttribute(SESSION, op.sessionId());
    }
    if (op.requestId() != null) {
      b.setAttribute(REQUEST_ID, op.requestId());
    }
    this.span = b.startSpan();
    this.context = parent.with(span);
  }

  @Override
  public Step step(StepKind step) {
    if (tracer == null) {
      return untraced.step(step);
    }
    var b =
        tracer
            .spanBuilder(
                step == StepKind.DISPATCH
                    ? op.spanName()
                    : op.tool() == null ? step.spanName() : step.spanName() + " " + op.tool())
            .setParent(context)
            .setSpanKind(step == StepKind.DISPATCH ? SpanKind.CLIENT : SpanKind.INTERNAL)
            .setAttribute(STEP, step.name().toLowerCase(java.util.Locale.ROOT))
            .setAttribute(OtelMeter.METHOD, op.method());
    if (op.tool() != null) {
      b.setAttribute(OtelMeter.TOOL, op.tool());
    }
    if (op.requestId() != null) {
      b.setAttribute(REQUEST_ID, op.requestId());
    }
    return new StepSpan(b.startSpan());
  }

  @Override
  public void decision(String decision) {
    span.setAttribute(OtelMeter.DECISION, decision);
  }

  @Override
  public void execution(String executionId, String state) {
    span.setAttribute(EXECUTION, executionId);
    span.setAttribute(OtelMeter.STATE, state);
  }

  @Override
  public void error(String type) {
    this.errorType = type;
  }

  @Override
  public void end(int httpStatus) {
    if (!ended.compareAndSet(false, true)) {
      return;
    }
    String type = errorType(errorType, httpStatus);
    meter.operation(op, System.nanoTime() - start, type);
    if (tracer != null) {
      endSpan(span, type);
    }
  }

  /**
   * The {@code error.type} of a request that ended with {@code httpStatus}: the type recorded
   * during it, else the status when it is 4xx or 5xx, else null.
   */
  static String errorType(String recorded, int httpStatus) {
    if (recorded == null && httpStatus >= 400) {
      return Integer.toString(httpStatus);
    }
    return recorded;
  }

  /** Ends {@code span}, marked failed with {@code errorType} unless that is null. */
  static void endSpan(Span span, String errorType) {
    if (errorType != null) {
      span.setAttribute(OtelMeter.ERROR_TYPE, errorType);
      span.setStatus(StatusCode.ERROR);
    }
    span.end();
  }

  /** The W3C {@code traceparent} of {@code c}. */
  static String traceparent(SpanContext c) {
    return "00-" + c.getTraceId() + "-" + c.getSpanId() + "-" + c.getTraceFlags().asHex();
  }

  /** The W3C {@code tracestate} of {@code c} (its members in order), or null when it has none. */
  static String tracestate(SpanContext c) {
    if (c.getTraceState().isEmpty()) {
      return null;
    }
    StringBuilder b = new StringBuilder();
    c.getTraceState()
        .forEach(
            (k, v) -> {
              if (b.length() > 0) {
                b.append(',');
              }
              b.append(k).append('=').append(v);
            });
    return b.toString();
  }

  private static final class StepSpan implements Step {
    private final Span span;
    private final AtomicBoolean ended = new AtomicBoolean();

    StepSpan(Span span) {
      this.span = span;
    }

    @Override
    public String traceparent() {
      return OtelRequestSpan.traceparent(span.getSpanContext());
    }

    @Override
    public String tracestate() {
      return OtelRequestSpan.tracestate(span.getSpanContext());
    }

    @Override
    public void state(String state) {
      span.setAttribute(OtelMeter.STATE, state);
    }

    @Override
    public void end(String errorType) {
      if (!ended.compareAndSet(false, true)) {
        return;
      }
      if (errorType != null) {
        span.setAttribute(OtelMeter.ERROR_TYPE, errorType);
        span.setStatus(StatusCode.ERROR);
      }
      span.end();
    }
  }
}
