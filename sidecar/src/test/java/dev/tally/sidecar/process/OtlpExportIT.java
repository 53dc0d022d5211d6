package dev.tally.sidecar.process;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static dev.tally.core.testing.OtlpExports.attr;
import static dev.tally.core.testing.OtlpExports.hex;
import static dev.tally.core.testing.OtlpExports.id;
import static dev.tally.core.testing.OtlpExports.names;
import static dev.tally.core.testing.OtlpExports.only;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.core.WireMockConfiguration;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import dev.tally.core.fingerprint.KeyFiles;
import dev.tally.core.testing.OtlpExports;
import dev.tally.sidecar.it.SdkUpstream;
import io.opentelemetry.proto.trace.v1.Span;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 19: a real {@code tally serve} process configured only by the standard {@code OTEL_*}
 * variables exports its spans and metrics over OTLP/HTTP to a collector (WireMock standalone stands
 * in for it); the spans are decoded with the official protobuf messages. A real MCP Java SDK server
 * is the upstream: the {@code traceparent} it receives names the exported dispatch span as its
 * parent, that span's parent is the request's server span, and the server span continues the
 * client's trace. A client's unsampled trace stays unsampled and unexported. No argument value
 * reaches the collector.
 */
class OtlpExportIT {
  private static final Duration START = Duration.ofSeconds(60);
  private static final Duration EXPORT = Duration.ofSeconds(30);
  private static final String VERSION = "2025-06-18";

  @TempDir Path dir;

  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(10))
          .build();
  private WireMockServer collector;
  private SdkUpstream upstream;

  @BeforeEach
  void start() throws Exception {
    collector =
        new WireMockServer(WireMockConfiguration.options().bindAddress("127.0.0.1").dynamicPort());
    collector.start();
    collector.stubFor(
        com.github.tomakehurst.wiremock.client.WireMock.post(urlPathMatching("/v1/.*"))
            .willReturn(
                aResponse().withStatus(200).withHeader("Content-Type", "application/x-protobuf")));
    upstream = new SdkUpstream();
  }

  @AfterEach
  void stop() throws Exception {
    upstream.close();
    collector.stop();
  }

  @Test
  void aCallsSpansReachTheCollectorAndTheUpstreamsParentIsTheExportedDispatchSpan()
      throws Exception {
    String title = "otlp-secret-" + UUID.randomUUID();
    String traceId = hex(16);
    String clientSpan = hex(8);
    String quietTrace = hex(16);
    String quietSpan = hex(8);
    TallyProcess p = serve();
    String session;
    String executionId;
    try (p) {
      session = initialize(p.mcp());
      HttpResponse<String> call =
          post(
              p.mcp(),
              session,
              "00-" + traceId + "-" + clientSpan + "-01",
              "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":"
                  + "\"create_ticket\",\"arguments\":{\"title\":\""
                  + title
                  + "\"}}}");
      assertThat(call.statusCode()).as(call.body()).isEqualTo(200);
      assertThat(call.body()).contains("ticket T-1 created");
      HttpResponse<String> quiet =
          post(
              p.mcp(),
              session,
              "00-" + quietTrace + "-" + quietSpan + "-00",
              "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":"
                  + "\"create_ticket\",\"_meta\":{\"traceparent\":\"00-"
                  + quietTrace
                  + "-"
                  + quietSpan
                  + "-00\"},\"arguments\":{\"title\":\"quiet-"
                  + UUID.randomUUID()
                  + "\"}}}");
      assertThat(quiet.statusCode()).as(quiet.body()).isEqualTo(200);
      assertThat(upstream.traceparents).hasSize(2);
      executionId = upstream.idempotencyKeys.get(0);

      String sent = upstream.traceparents.get(0);
      assertThat(sent)
          .as("the client's trace goes on, sampled")
          .matches("00-" + traceId + "-[0-9a-f]{16}-01");
      String dispatchSpanId = sent.split("-")[2];
      assertThat(upstream.metaTraceparents.get(0))
          .as("the MCP server reads the same parent from params._meta (SEP-414)")
          .isEqualTo(sent);
      assertThat(upstream.metaTraceparents.get(1))
          .as("the caller's own _meta traceparent is replaced by Tally's span, as the header is")
          .isEqualTo(upstream.traceparents.get(1))
          .doesNotContain(quietSpan);
      // The server span ends after the answer is written: wait for the whole request.
      Poll.until(
          EXPORT,
          () -> {
            List<Span> all = spans();
            return all.stream()
                .filter(s -> id(s.getSpanId()).equals(dispatchSpanId))
                .anyMatch(
                    d ->
                        all.stream().anyMatch(s -> s.getSpanId().equals(d.getParentSpanId()))
                            && all.stream()
                                .anyMatch(s -> s.getName().equals("tally.complete create_ticket")));
          },
          () -> "exported spans: " + names(spans()));

      List<Span> spans = spans();
      Span dispatch = only(spans, s -> id(s.getSpanId()).equals(dispatchSpanId));
      assertThat(dispatch.getName()).isEqualTo("tools/call create_ticket");
      assertThat(dispatch.getKind()).isEqualTo(Span.SpanKind.SPAN_KIND_CLIENT);
      assertThat(attr(dispatch, "tally.step")).contains("dispatch");
      Span server = only(spans, s -> s.getSpanId().equals(dispatch.getParentSpanId()));
      assertThat(server.getName()).isEqualTo("tools/call create_ticket");
      assertThat(server.getKind()).isEqualTo(Span.SpanKind.SPAN_KIND_SERVER);
      assertThat(id(server.getTraceId())).isEqualTo(traceId);
      assertThat(id(server.getParentSpanId())).as("the client's span").isEqualTo(clientSpan);
      assertThat(attr(server, "mcp.method.name")).contains("tools/call");
      assertThat(attr(server, "gen_ai.tool.name")).contains("create_ticket");
      assertThat(attr(server, "mcp.protocol.version")).contains(VERSION);
      assertThat(attr(server, "mcp.session.id")).contains(session);
      assertThat(attr(server, "jsonrpc.request.id")).contains("2");
      assertThat(attr(server, "tally.decision")).contains("dispatch");
      assertThat(attr(server, "tally.execution.id")).contains(executionId);
      assertThat(attr(server, "tally.state")).contains("completed");
      assertThat(attr(server, "error.type")).isEmpty();

      Span admit =
          only(
              spans,
              s ->
                  s.getName().equals("tally.admit create_ticket")
                      && s.getTraceId().equals(server.getTraceId()));
      assertThat(admit.getParentSpanId()).isEqualTo(server.getSpanId());
      Span complete =
          only(
              spans,
              s ->
                  s.getName().equals("tally.complete create_ticket")
                      && s.getTraceId().equals(server.getTraceId()));
      assertThat(complete.getParentSpanId()).isEqualTo(server.getSpanId());
      assertThat(attr(complete, "tally.state")).contains("completed");
      assertThat(spans)
          .as("every MCP request has a span: initialize too")
          .anyMatch(
              s ->
                  s.getName().equals("initialize")
                      && s.getKind() == Span.SpanKind.SPAN_KIND_SERVER);

      // Metrics through the same SDK: on /metrics at once, and over OTLP.
      String metrics =
          http.send(
                  HttpRequest.newBuilder(p.admin("/metrics"))
                      .timeout(Duration.ofSeconds(30))
                      .build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      assertThat(metrics)
          .containsPattern(
              "mcp_server_operation_duration_seconds_count\\{[^}]*gen_ai_tool_name=\"create_ticket\"[^}]*\\} 2")
          .containsPattern(
              "tally_decisions_total\\{gen_ai_tool_name=\"create_ticket\",tally_decision=\"dispatch\"\\} 2")
          .containsPattern(
              "tally_executions_total\\{gen_ai_tool_name=\"create_ticket\",tally_state=\"completed\"\\} 2")
          .containsPattern(
              "tally_store_operation_duration_seconds_count\\{tally_store_operation=\"claim\"\\} 2")
          .containsPattern("(?m)^tally_journal_fsyncs_total [1-9]")
          .contains("jvm_memory_used_bytes")
          .doesNotContain(title);
      // Instruments reach the collector in whichever periodic export first has a point of theirs:
      // wait for all of them, not for the first.
      List<String> wanted =
          List.of(
              "mcp.server.operation.duration",
              "tally.decisions",
              "tally.store.operation.duration",
              "jvm.memory.used");
      Poll.until(
          EXPORT,
          () -> metricNames().containsAll(wanted),
          () -> "exported metrics: " + metricNames());
      assertThat(metricNames()).containsAll(wanted);

      p.terminate();
      assertThat(p.awaitExit(Duration.ofSeconds(40))).as(p.output()).isZero();
    }
    // After the drain every span is flushed: the unsampled trace left none.
    String quietSent = upstream.traceparents.get(1);
    assertThat(quietSent)
        .as("unsampled stays unsampled")
        .matches("00-" + quietTrace + "-[0-9a-f]{16}-00");
    assertThat(spans()).noneMatch(s -> id(s.getTraceId()).equals(quietTrace));
    List<String> leaks = new ArrayList<>();
    for (LoggedRequest r : collector.findAll(postRequestedFor(urlPathMatching("/v1/.*")))) {
      if (new String(r.getBody(), StandardCharsets.ISO_8859_1).contains(title)) {
        leaks.add(r.getUrl());
      }
    }
    assertThat(leaks).as("an argument value exported").isEmpty();
  }

  @Test
  void withoutOtelVariablesNothingIsSentAndMetricsStillServe() throws Exception {
    try (TallyProcess p = serve(Map.of())) {
      String session = initialize(p.mcp());
      HttpResponse<String> call =
          post(
              p.mcp(),
              session,
              null,
              "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":"
                  + "\"create_ticket\",\"arguments\":{\"title\":\"off\"}}}");
      assertThat(call.statusCode()).as(call.body()).isEqualTo(200);
      assertThat(upstream.traceparents.get(0))
          .as("a new trace nobody records is not sampled")
          .matches("00-[0-9a-f]{32}-[0-9a-f]{16}-00");
      String metrics =
          http.send(
                  HttpRequest.newBuilder(p.admin("/metrics"))
                      .timeout(Duration.ofSeconds(30))
                      .build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      assertThat(metrics).contains("mcp_server_operation_duration_seconds_bucket", "tally_up 1");
      p.terminate();
      assertThat(p.awaitExit(Duration.ofSeconds(40))).as(p.output()).isZero();
    }
    assertThat(collector.getAllServeEvents()).isEmpty();
  }

  /**
   * The MCP conventions define spans per MCP message, not per HTTP request: each request of a
   * 2025-03-26 batch gets a server span of its own under the client's context (its gated call a
   * dispatch child whose context the upstream receives, in the header and in {@code _meta}); a GET
   * stream (standalone listen, or a resumption) gets a {@code tally.stream} server span.
   */
  @Test
  void batchElementsAndGetStreamsEachHaveTheirOwnSpan() throws Exception {
    String traceId = hex(16);
    String batchSpan = hex(8);
    String resumeSpan = hex(8);
    String listenSpan = hex(8);
    String batchVersion = "2025-03-26";
    TallyProcess p = serve();
    String session;
    try (p) {
      session = initialize(p.mcp(), batchVersion);
      HttpResponse<String> batch =
          post(
              p.mcp(),
              session,
              batchVersion,
              "00-" + traceId + "-" + batchSpan + "-01",
              "[{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":"
                  + "\"create_ticket\",\"arguments\":{\"title\":\"batched\"}}},"
                  + "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/list\"}]");
      assertThat(batch.statusCode()).as(batch.body()).isEqualTo(200);
      assertThat(batch.body()).startsWith("[").contains("ticket T-1 created");
      assertThat(upstream.traceparents).hasSize(1);
      String sent = upstream.traceparents.get(0);
      assertThat(sent).startsWith("00-" + traceId + "-");
      assertThat(upstream.metaTraceparents).containsExactly(sent);

      HttpResponse<String> resume =
          http.send(
              HttpRequest.newBuilder(p.mcp())
                  .timeout(Duration.ofSeconds(30))
                  .header("Accept", "text/event-stream")
                  .header("Mcp-Session-Id", session)
                  .header("MCP-Protocol-Version", batchVersion)
                  .header("Last-Event-ID", "no-such-event")
                  .header("traceparent", "00-" + traceId + "-" + resumeSpan + "-01")
                  .GET()
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(resume.statusCode()).as(resume.body()).isGreaterThanOrEqualTo(400);
      // A standalone stream stays open: its span ends when the client goes away.
      HttpResponse<java.io.InputStream> listen =
          http.send(
              HttpRequest.newBuilder(p.mcp())
                  .header("Accept", "text/event-stream")
                  .header("Mcp-Session-Id", session)
                  .header("MCP-Protocol-Version", batchVersion)
                  .header("traceparent", "00-" + traceId + "-" + listenSpan + "-01")
                  .GET()
                  .build(),
              HttpResponse.BodyHandlers.ofInputStream());
      assertThat(listen.statusCode()).isEqualTo(200);
      listen.body().close();
      Poll.until(
          EXPORT,
          () -> spans().stream().anyMatch(s -> s.getName().equals("tally.stream listen")),
          () -> "exported spans: " + names(spans()));
      p.terminate();
      assertThat(p.awaitExit(Duration.ofSeconds(40))).as(p.output()).isZero();
    }
    // After the drain every span is flushed.
    List<Span> spans = spans();
    Span call =
        only(
            spans,
            s ->
                s.getName().equals("tools/call create_ticket")
                    && s.getKind() == Span.SpanKind.SPAN_KIND_SERVER);
    Span list = only(spans, s -> s.getName().equals("tools/list"));
    for (Span s : List.of(call, list)) {
      assertThat(id(s.getTraceId())).isEqualTo(traceId);
      assertThat(id(s.getParentSpanId())).as("the HTTP request's context").isEqualTo(batchSpan);
      assertThat(s.getKind()).isEqualTo(Span.SpanKind.SPAN_KIND_SERVER);
      assertThat(attr(s, "mcp.session.id")).contains(session);
      assertThat(attr(s, "mcp.protocol.version")).contains(batchVersion);
    }
    assertThat(attr(call, "jsonrpc.request.id")).contains("7");
    assertThat(attr(list, "jsonrpc.request.id")).contains("8");
    assertThat(attr(call, "tally.decision")).contains("dispatch");
    Span dispatch =
        only(spans, s -> id(s.getSpanId()).equals(upstream.traceparents.get(0).split("-")[2]));
    assertThat(dispatch.getParentSpanId()).isEqualTo(call.getSpanId());
    assertThat(dispatch.getKind()).isEqualTo(Span.SpanKind.SPAN_KIND_CLIENT);

    Span resumed = only(spans, s -> s.getName().equals("tally.stream resume"));
    assertThat(id(resumed.getParentSpanId())).isEqualTo(resumeSpan);
    assertThat(resumed.getKind()).isEqualTo(Span.SpanKind.SPAN_KIND_SERVER);
    assertThat(attr(resumed, "tally.stream")).contains("resume");
    assertThat(attr(resumed, "error.type")).isPresent();
    Span listened = only(spans, s -> s.getName().equals("tally.stream listen"));
    assertThat(id(listened.getParentSpanId())).isEqualTo(listenSpan);
    assertThat(attr(listened, "mcp.session.id")).contains(session);
    assertThat(attr(listened, "mcp.method.name")).as("a GET carries no MCP message").isEmpty();
  }

  private TallyProcess serve() throws Exception {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("OTEL_EXPORTER_OTLP_ENDPOINT", collector.baseUrl());
    env.put("OTEL_BSP_SCHEDULE_DELAY", "100");
    env.put("OTEL_METRIC_EXPORT_INTERVAL", "300");
    env.put("OTEL_SERVICE_NAME", "tally-otlp-it");
    return serve(env);
  }

  private TallyProcess serve(Map<String, String> env) throws Exception {
    Path keys = dir.resolve("keys").resolve("hmac.keys");
    if (!Files.exists(keys)) {
      KeyFiles.generate(keys, Clock.systemUTC());
    }
    Path config = dir.resolve("tally.yaml");
    Files.writeString(
        config,
        "upstream:\n  url: "
            + upstream.url()
            + "\nstore: journal:"
            + dir.resolve("data").resolve("journal")
            + "\n");
    return TallyProcess.serve(
            dir, config, TallyProcess.SMALL_JVM, env, "--hmac-key-file", keys.toString())
        .awaitListening(START);
  }

  /** {@code initialize} and {@code notifications/initialized}; returns the session id. */
  private String initialize(URI mcp) throws Exception {
    return initialize(mcp, VERSION);
  }

  private String initialize(URI mcp, String version) throws Exception {
    HttpResponse<String> init =
        post(
            mcp,
            null,
            version,
            null,
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\""
                + version
                + "\",\"capabilities\":{},\"clientInfo\":{\"name\":\"otlp-it\",\"version\":\"1\"}}}");
    assertThat(init.statusCode()).as(init.body()).isEqualTo(200);
    String session = init.headers().firstValue("Mcp-Session-Id").orElseThrow();
    HttpResponse<String> note =
        post(
            mcp,
            session,
            version,
            null,
            "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    assertThat(note.statusCode()).as(note.body()).isEqualTo(202);
    return session;
  }

  private HttpResponse<String> post(URI mcp, String session, String traceparent, String body)
      throws Exception {
    return post(mcp, session, VERSION, traceparent, body);
  }

  private HttpResponse<String> post(
      URI mcp, String session, String version, String traceparent, String body) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(mcp)
            .timeout(Duration.ofSeconds(30))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (session != null) {
      b.header("Mcp-Session-Id", session).header("MCP-Protocol-Version", version);
    }
    if (traceparent != null) {
      b.header("traceparent", traceparent);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** Every span the collector received so far, each from this process's service. */
  private List<Span> spans() {
    return OtlpExports.spans(
        collector,
        resource ->
            assertThat(resource.getAttributesList())
                .anyMatch(
                    kv ->
                        kv.getKey().equals("service.name")
                            && kv.getValue().getStringValue().equals("tally-otlp-it")));
  }

  private List<String> metricNames() {
    return OtlpExports.metricNames(collector);
  }
}
