package dev.tally.telemetry;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * What the standard {@code OTEL_*} environment variables ask of Tally's telemetry: export is off
 * unless one of them names an exporter or an OTLP endpoint, and {@code OTEL_SDK_DISABLED=true}
 * turns it off again. Everything else ({@code OTEL_EXPORTER_OTLP_PROTOCOL}, {@code
 * OTEL_TRACES_SAMPLER}, {@code OTEL_BSP_SCHEDULE_DELAY}, {@code OTEL_RESOURCE_ATTRIBUTES}, …) is
 * read by the SDK's autoconfiguration as documented there.
 *
 * @param exporting whether anything is exported (then the SDK is autoconfigured)
 * @param properties the variables as SDK properties ({@code OTEL_FOO_BAR} as {@code otel.foo.bar})
 *     with Tally's defaults under them: OTLP/HTTP (protobuf) traces and metrics when an OTLP
 *     endpoint is set, no log export, the adapter's service name
 */
record OtelSettings(boolean exporting, Map<String, String> properties) {
  static final String DEFAULT_SERVICE_NAME = "tally";

  static OtelSettings from(Map<String, String> env, String serviceName) {
    Map<String, String> props = new HashMap<>();
    for (Map.Entry<String, String> e : env.entrySet()) {
      String k = e.getKey();
      if (k.startsWith("OTEL_") && e.getValue() != null && !e.getValue().isBlank()) {
        props.put(k.toLowerCase(Locale.ROOT).replace('_', '.'), e.getValue().trim());
      }
    }
    boolean disabled = "true".equalsIgnoreCase(props.get("otel.sdk.disabled"));
    boolean anyEndpoint = props.containsKey("otel.exporter.otlp.endpoint");
    boolean traces =
        anyEndpoint
            || props.containsKey("otel.exporter.otlp.traces.endpoint")
            || exporterNamed(props.get("otel.traces.exporter"));
    boolean metrics =
        anyEndpoint
            || props.containsKey("otel.exporter.otlp.metrics.endpoint")
            || exporterNamed(props.get("otel.metrics.exporter"));
    Map<String, String> merged = new HashMap<>();
    merged.put("otel.traces.exporter", traces ? "otlp" : "none");
    merged.put("otel.metrics.exporter", metrics ? "otlp" : "none");
    merged.put("otel.logs.exporter", "none");
    // The OTLP specification's default; the SDK's own default (grpc) needs a sender Tally omits.
    merged.put("otel.exporter.otlp.protocol", "http/protobuf");
    merged.put("otel.service.name", serviceName == null ? DEFAULT_SERVICE_NAME : serviceName);
    merged.putAll(props);
    return new OtelSettings(!disabled && (traces || metrics), Map.copyOf(merged));
  }

  /** Whether spans are exported (a traces exporter other than {@code none}). */
  boolean tracing() {
    return exporting && exporterNamed(properties.get("otel.traces.exporter"));
  }

  private static boolean exporterNamed(String v) {
    return v != null && !v.isBlank() && !"none".equalsIgnoreCase(v.trim());
  }
}
