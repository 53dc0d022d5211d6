package dev.tally.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class OtelTelemetryExportTest {
  @Test
  void anOtlpEndpointTurnsTracingOn() {
    try (OtelTelemetry t =
        OtelTelemetry.create(
            Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9"), "tally-test")) {
      assertThat(t.tracing()).isTrue();
    }
  }

  @Test
  void anUnsupportedProtocolIsRefusedNamingTheVariable() {
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () ->
                OtelTelemetry.create(
                    Map.of(
                        "OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9",
                        "OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"),
                    "tally-test"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("OTEL_")
        .hasMessageContaining("http/protobuf");
  }
}
