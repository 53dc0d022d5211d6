package dev.tally.telemetry;

import dev.tally.core.mcp.Era;
import dev.tally.core.mcp.Headers;
import dev.tally.core.mcp.McpNames.HeaderNames;
import dev.tally.core.observe.McpOperation;
import dev.tally.core.observe.Meter;
import dev.tally.core.observe.RequestSpan;
import dev.tally.core.observe.Telemetry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.exporter.prometheus.PrometheusMetricReader;
import io.opentelemetry.instrumentation.runtimemetrics.java8.RuntimeMetrics;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.resources.Resource;
import io.prometheus.metrics.config.EscapingScheme;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@link Telemetry} on the OpenTelemetry SDK, the one implementation both adapters use. Metrics
 * always go to an in-process Prometheus reader ({@link #prometheusText()}, served on {@code
 * /metrics}); spans and OTLP metrics are exported only when the standard {@code OTEL_*} variables
 * configure an exporter ({@link OtelSettings}); otherwise no span is created and the upstream's
 * {@code traceparent} comes from {@link Telemetry#NONE}. Close it to flush and stop the exporters.
 */
public final class OtelTelemetry implements Telemetry, AutoCloseable {
  static final String SCOPE = "dev.tally";

  private static final TextMapGetter<Headers> GETTER =
      new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Headers carrier) {
          return List.of("traceparent", "tracestate");
        }

        @Override
        public String get(Headers carrier, String key) {
          return carrier == null ? null : carrier.get(key);
        }
      };

  private final OpenTelemetrySdk sdk;
  private final PrometheusMetricReader prometheus;
  private final Tracer tracer;
  private final OtelMeter meter;
  private final RuntimeMetrics runtime;
  private final boolean exporting;
  private final java.util.concurrent.atomic.AtomicBoolean closed =
      new java.util.concurrent.atomic.AtomicBoolean();

  private OtelTelemetry(OpenTelemetrySdk sdk, PrometheusMetricReader prometheus, boolean tracing) {
    this.sdk = sdk;
    this.prometheus = prometheus;
    this.tracer = tracing ? sdk.getTracer(SCOPE) : null;
    this.meter = new OtelMeter(sdk.getMeter(SCOPE));
    this.runtime = RuntimeMetrics.builder(sdk).build();
    this.exporting = tracing;
  }

  /**
   * Telemetry as the process environment's {@code OTEL_*} variables configure it, for the service
   * {@code serviceName} (unless {@code OTEL_SERVICE_NAME} says otherwise).
   */
  public static OtelTelemetry fromEnvironment(String serviceName) {
    return create(System.getenv(), serviceName);
  }

  /** As {@link #fromEnvironment}, reading the variables from {@code env}. */
  public static OtelTelemetry create(Map<String, String> env, String serviceName) {
    OtelSettings settings = OtelSettings.from(env, serviceName);
    PrometheusMetricReader prometheus =
        PrometheusMetricReader.builder()
            .setOtelScopeLabelsEnabled(false)
            .setTargetInfoMetricEnabled(false)
            .build();
    if (!settings.exporting()) {
      SdkMeterProvider meters =
          SdkMeterProvider.builder()
              .setResource(
                  Resource.getDefault()
                      .merge(Resource.builder().put("service.name", name(settings)).build()))
              .registerMetricReader(prometheus)
              .build();
      return new OtelTelemetry(
          OpenTelemetrySdk.builder().setMeterProvider(meters).build(), prometheus, false);
    }
    OpenTelemetrySdk sdk;
    try {
      sdk =
          AutoConfiguredOpenTelemetrySdk.builder()
              .addPropertiesSupplier(settings::properties)
              .addPropertiesCustomizer(c -> settings.properties())
              .addMeterProviderCustomizer((b, c) -> b.registerMetricReader(prometheus))
              .disableShutdownHook()
              .build()
              .getOpenTelemetrySdk();
    } catch (RuntimeException e) {
      Throwable cause = e.getCause() != null ? e.getCause() : e;
      throw new IllegalArgumentException(
          "OpenTelemetry (OTEL_* environment variables): "
              + cause.getMessage()
              + " (expected: OTEL_EXPORTER_OTLP_PROTOCOL http/protobuf, the only one Tally ships,"
              + " and exporters otlp or none)",
          e);
    }
    return new OtelTelemetry(sdk, prometheus, settings.tracing());
  }

  private static String name(OtelSettings s) {
    return s.properties().get("otel.service.name");
  }

  @Override
  public RequestSpan request(McpOperation op, Headers incoming) {
    Headers h = incoming == null ? Headers.NONE : incoming;
    if (tracer == null) {
      return new OtelRequestSpan(op, meter, null, Context.root(), Telemetry.NONE.request(op, h));
    }
    Context parent = W3CTraceContextPropagator.getInstance().extract(Context.root(), h, GETTER);
    return new OtelRequestSpan(op, meter, tracer, parent, null);
  }

  @Override
  public RequestSpan stream(boolean resume, Headers incoming) {
    if (tracer == null) {
      return RequestSpan.NONE;
    }
    Headers h = incoming == null ? Headers.NONE : incoming;
    String version = h.get(HeaderNames.PROTOCOL_VERSION);
    String session = Era.ofHeader(version) == Era.LEGACY ? h.get(HeaderNames.SESSION_ID) : null;
    Context parent = W3CTraceContextPropagator.getInstance().extract(Context.root(), h, GETTER);
    return new OtelStreamSpan(tracer, parent, resume, version, session);
  }

  @Override
  public Meter meter() {
    return meter;
  }

  @Override
  public boolean tracing() {
    return exporting;
  }

  /** The OpenTelemetry API behind this telemetry (for adapters that instrument more). */
  public OpenTelemetry openTelemetry() {
    return sdk;
  }

  /** Every metric in the Prometheus text exposition format (version 0.0.4). */
  public String prometheusText() {
    ByteArrayOutputStream out = new ByteArrayOutputStream(4096);
    try {
      PrometheusTextFormatWriter.create()
          .write(out, prometheus.collect(), EscapingScheme.UNDERSCORE_ESCAPING);
    } catch (IOException e) {
      throw new IllegalStateException("cannot happen: writing to memory", e);
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  /** The content type of {@link #prometheusText()}. */
  public static String prometheusContentType() {
    return PrometheusTextFormatWriter.CONTENT_TYPE;
  }

  /** Flushes what is pending (bounded) and stops the exporters. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return; // a servlet container may destroy a filter twice
    }
    runtime.close();
    sdk.shutdown().join(10, TimeUnit.SECONDS);
  }
}
