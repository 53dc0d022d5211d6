package dev.tally.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.core.mcp.Headers;
import dev.tally.core.observe.McpOperation;
import dev.tally.core.observe.RequestSpan;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OtelTelemetryTest {
  private static final McpOperation CALL =
      new McpOperation("tools/call", "create_ticket", "2025-06-18", "s-1", "7");
  private static final String INCOMING = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

  @Test
  void withoutOtelVariablesNothingIsExportedAndTheTraceStillGoesOn() {
    try (OtelTelemetry t = OtelTelemetry.create(Map.of("PATH", "/bin"), "tally-test")) {
      assertThat(t.tracing()).isFalse();
      RequestSpan span = t.request(CALL, name -> name.equals("traceparent") ? INCOMING : null);
      String up = span.step(RequestSpan.StepKind.DISPATCH).traceparent();
      assertThat(up)
          .startsWith("00-4bf92f3577b34da6a3ce929d0e0e4736-")
          .endsWith("-01")
          .doesNotContain("00f067aa0ba902b7");
      assertThat(t.request(CALL, Headers.NONE).step(RequestSpan.StepKind.DISPATCH).traceparent())
          .as("a new trace nobody records is not sampled")
          .matches("00-[0-9a-f]{32}-[0-9a-f]{16}-00");
      span.end(200);
    }
  }

  @Test
  void metricsAreInPrometheusTextWithTheMcpHistogramDecisionsAndJvm() {
    try (OtelTelemetry t = OtelTelemetry.create(Map.of(), "tally-test")) {
      RequestSpan span = t.request(CALL, Headers.NONE);
      span.error("tool_error");
      span.end(200);
      t.meter().decision("dispatch", "create_ticket");
      t.meter().state("outcome_unknown", "create_ticket");
      t.meter().storeOperation("claim", 1_500_000, false);
      t.meter().gauge("tally.store.executions", "held", "", () -> 3);
      t.meter().counter("tally.journal.fsyncs", "fsyncs", "", () -> 5);
      String text = t.prometheusText();
      assertThat(text)
          .contains("# TYPE mcp_server_operation_duration_seconds histogram")
          .containsPattern(
              "mcp_server_operation_duration_seconds_count\\{[^}]*error_type=\"tool_error\"[^}]*"
                  + "gen_ai_tool_name=\"create_ticket\"[^}]*mcp_method_name=\"tools/call\"")
          .containsPattern(
              "tally_decisions_total\\{gen_ai_tool_name=\"create_ticket\",tally_decision=\"dispatch\"\\} 1")
          .containsPattern("tally_outcome_unknown_total\\{gen_ai_tool_name=\"create_ticket\"\\} 1")
          .containsPattern(
              "tally_store_operation_duration_seconds_count\\{tally_store_operation=\"claim\"\\} 1")
          .containsPattern("(?m)^tally_store_executions 3(\\.0)?$")
          .containsPattern("(?m)^tally_journal_fsyncs_total 5(\\.0)?$")
          .contains("jvm_memory_used_bytes")
          .doesNotContain("otel_scope");
    }
  }

  @Test
  void exportIsOnlyOnWhenAnOtelVariableNamesAnExporterOrEndpoint() {
    assertThat(OtelSettings.from(Map.of(), null).exporting()).isFalse();
    assertThat(OtelSettings.from(Map.of("OTEL_SERVICE_NAME", "x"), null).exporting()).isFalse();
    assertThat(OtelSettings.from(Map.of("OTEL_TRACES_EXPORTER", "none"), null).exporting())
        .isFalse();
    OtelSettings on =
        OtelSettings.from(Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318"), "s");
    assertThat(on.exporting()).isTrue();
    assertThat(on.tracing()).isTrue();
    assertThat(on.properties())
        .containsEntry("otel.exporter.otlp.endpoint", "http://127.0.0.1:4318")
        .containsEntry("otel.logs.exporter", "none")
        .containsEntry("otel.service.name", "s");
    assertThat(
            OtelSettings.from(
                    Map.of(
                        "OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318",
                        "OTEL_SDK_DISABLED", "true"),
                    null)
                .exporting())
        .isFalse();
    OtelSettings metricsOnly = OtelSettings.from(Map.of("OTEL_METRICS_EXPORTER", "otlp"), null);
    assertThat(metricsOnly.exporting()).isTrue();
    assertThat(metricsOnly.tracing()).isFalse();
  }
}
