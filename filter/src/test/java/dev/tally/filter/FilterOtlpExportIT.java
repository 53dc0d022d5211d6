package dev.tally.filter;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static dev.tally.core.testing.OtlpExports.attr;
import static dev.tally.core.testing.OtlpExports.hex;
import static dev.tally.core.testing.OtlpExports.id;
import static dev.tally.core.testing.OtlpExports.only;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.client.WireMock;
import com.github.tomakehurst.wiremock.core.WireMockConfiguration;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import dev.tally.core.store.MemoryExecutionStore;
import dev.tally.core.testing.OtlpExports;
import dev.tally.telemetry.OtelTelemetry;
import io.opentelemetry.proto.trace.v1.Span;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 19, the filter side of {@code OtlpExportIT}: the servlet filter in front of the MCP Java
 * SDK's servlet transport exports the same spans as the sidecar over OTLP/HTTP (WireMock standalone
 * as the collector), and the application's MCP server sees a {@code traceparent} whose parent is
 * the exported dispatch span.
 */
class FilterOtlpExportIT {
  private static final String VERSION = "2025-06-18";
  private static final Duration EXPORT = Duration.ofSeconds(30);

  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(10))
          .build();
  private WireMockServer collector;
  private SdkApp app;

  @BeforeEach
  void start() throws Exception {
    collector =
        new WireMockServer(WireMockConfiguration.options().bindAddress("127.0.0.1").dynamicPort());
    collector.start();
    collector.stubFor(
        WireMock.post(urlPathMatching("/v1/.*"))
            .willReturn(
                aResponse().withStatus(200).withHeader("Content-Type", "application/x-protobuf")));
    OtelTelemetry telemetry =
        OtelTelemetry.create(
            Map.of(
                "OTEL_EXPORTER_OTLP_ENDPOINT", collector.baseUrl(),
                "OTEL_BSP_SCHEDULE_DELAY", "100",
                "OTEL_METRIC_EXPORT_INTERVAL", "300"),
            TallyFilter.SERVICE_NAME);
    MemoryExecutionStore store = MemoryExecutionStore.create();
    TallyFilter filter =
        TallyFilter.builder()
            .settings(FilterSettings.defaults())
            .store(store)
            .keys(SdkApp.keys())
            .telemetry(telemetry)
            .build();
    app = SdkApp.withFilter(store, filter);
  }

  @AfterEach
  void stop() throws Exception {
    if (app != null) {
      app.close();
    }
    collector.stop();
  }

  @Test
  void theFiltersSpansReachTheCollectorAndTheAppsParentIsTheExportedDispatchSpan()
      throws Exception {
    String traceId = hex(16);
    String clientSpan = hex(8);
    String message = "filter-secret-" + UUID.randomUUID();
    String session = initialize(app.endpoint());
    HttpResponse<String> call =
        post(
            app.endpoint(),
            session,
            "00-" + traceId + "-" + clientSpan + "-01",
            "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\""
                + SdkApp.WRITE
                + "\",\"arguments\":{\"message\":\""
                + message
                + "\"}}}");
    assertThat(call.statusCode()).as(call.body()).isEqualTo(200);
    assertThat(call.body()).contains("ticket T-1");
    String sent = app.traceparents.peek();
    assertThat(sent).matches("00-" + traceId + "-[0-9a-f]{16}-01");
    String dispatchId = sent.split("-")[2];
    assertThat(app.metaTraceparents)
        .as("the MCP server reads the same parent from params._meta (SEP-414)")
        .containsExactly(sent);
    // The server span ends after the dispatch span (it ends with the answer) and may leave in a
    // later export batch: wait for the whole tree, not its first span.
    long deadline = System.nanoTime() + EXPORT.toNanos();
    while (!wholeTree(spans(), dispatchId) && System.nanoTime() < deadline) {
      TimeUnit.MILLISECONDS.sleep(50);
    }
    List<Span> spans = spans();
    Span dispatch = only(spans, s -> id(s.getSpanId()).equals(dispatchId));
    assertThat(dispatch.getName()).isEqualTo("tools/call " + SdkApp.WRITE);
    assertThat(dispatch.getKind()).isEqualTo(Span.SpanKind.SPAN_KIND_CLIENT);
    Span server = only(spans, s -> s.getSpanId().equals(dispatch.getParentSpanId()));
    assertThat(server.getName()).isEqualTo("tools/call " + SdkApp.WRITE);
    assertThat(server.getKind()).isEqualTo(Span.SpanKind.SPAN_KIND_SERVER);
    assertThat(id(server.getParentSpanId())).isEqualTo(clientSpan);
    assertThat(attr(server, "mcp.session.id")).contains(session);
    assertThat(attr(server, "tally.decision")).contains("dispatch");
    assertThat(attr(server, "tally.execution.id"))
        .hasValueSatisfying(v -> assertThat(v).startsWith("act_"));
    assertThat(spans)
        .anyMatch(
            s ->
                s.getName().equals("tally.admit " + SdkApp.WRITE)
                    && s.getParentSpanId().equals(server.getSpanId()))
        .anyMatch(
            s ->
                s.getName().equals("tally.complete " + SdkApp.WRITE)
                    && s.getParentSpanId().equals(server.getSpanId()));
    assertThat(app.filter.metrics())
        .containsPattern(
            "mcp_server_operation_duration_seconds_count\\{[^}]*gen_ai_tool_name=\""
                + SdkApp.WRITE
                + "\"[^}]*\\} 1")
        .contains("tally_decisions_total")
        .contains("jvm_memory_used_bytes");
    for (LoggedRequest r : collector.findAll(postRequestedFor(urlPathMatching("/v1/.*")))) {
      assertThat(new String(r.getBody(), StandardCharsets.ISO_8859_1))
          .as("an argument value exported")
          .doesNotContain(message);
    }
  }

  private String initialize(URI mcp) throws Exception {
    HttpResponse<String> init =
        post(
            mcp,
            null,
            null,
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\""
                + VERSION
                + "\",\"capabilities\":{},\"clientInfo\":{\"name\":\"otlp\",\"version\":\"1\"}}}");
    assertThat(init.statusCode()).as(init.body()).isEqualTo(200);
    String session = init.headers().firstValue("Mcp-Session-Id").orElseThrow();
    HttpResponse<String> note =
        post(mcp, session, null, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    assertThat(note.statusCode()).as(note.body()).isEqualTo(202);
    return session;
  }

  private HttpResponse<String> post(URI mcp, String session, String traceparent, String body)
      throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(mcp)
            .timeout(Duration.ofSeconds(30))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (session != null) {
      b.header("Mcp-Session-Id", session).header("MCP-Protocol-Version", VERSION);
    }
    if (traceparent != null) {
      b.header("traceparent", traceparent);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  /**
   * The dispatch span, its parent (the request's server span) and that one's admit and complete.
   */
  private static boolean wholeTree(List<Span> spans, String dispatchId) {
    Span dispatch =
        spans.stream().filter(s -> id(s.getSpanId()).equals(dispatchId)).findFirst().orElse(null);
    if (dispatch == null) {
      return false;
    }
    boolean server = spans.stream().anyMatch(s -> s.getSpanId().equals(dispatch.getParentSpanId()));
    long children =
        spans.stream()
            .filter(s -> s.getParentSpanId().equals(dispatch.getParentSpanId()))
            .filter(
                s ->
                    s.getName().startsWith("tally.admit ")
                        || s.getName().startsWith("tally.complete "))
            .count();
    return server && children >= 2;
  }

  private List<Span> spans() {
    return OtlpExports.spans(collector, resource -> {});
  }
}
