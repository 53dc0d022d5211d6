package dev.tally.sidecar.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tally.sidecar.Sidecar;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An upstream that begins an answer and then falls silent, or breaks it off, on a request that
 * passes without the gate: the sidecar must not hold the client's stream open forever, nor pass a
 * truncated body off as whole. Silence is bounded by {@code upstream.timeout} (here {@value
 * #UPSTREAM_TIMEOUT_MS} ms), except on the session's standalone GET stream, which may stay quiet.
 */
class SidecarSilentUpstreamIT {
  /**
   * Long enough that, on a busy machine, the broken stream's close (50 ms after its first event)
   * always comes first and a request reaches the upstream before its timeout runs out.
   */
  private static final long UPSTREAM_TIMEOUT_MS = 2000;

  private static final ObjectMapper JSON = new ObjectMapper();

  /** What the scripted upstream does after it began its answer. */
  enum Script {
    /** SSE: one notification, then nothing, the connection kept open. */
    SSE_SILENT,
    /** SSE: one notification, then the connection is closed without an answer. */
    SSE_BROKEN,
    /** Chunked JSON: half an answer, then nothing. */
    JSON_SILENT,
    /** Content-Length JSON: the head, no body, then nothing. */
    HEAD_ONLY
  }

  private volatile Script script;
  private Vertx vertx;
  private Sidecar sidecar;

  @AfterEach
  void stop() throws Exception {
    if (sidecar != null) {
      sidecar.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  void aSilentCallStreamEndsWithATimeoutErrorForItsRequest() throws Exception {
    HttpResponse<String> r = post(start(Script.SSE_SILENT), "prompts/get");

    assertThat(r.statusCode()).isEqualTo(200);
    List<JsonNode> events = dataEvents(r.body());
    assertThat(events).hasSize(2);
    assertThat(events.get(0).path("method").asText()).isEqualTo("notifications/message");
    JsonNode error = events.get(1);
    assertThat(error.path("id").asInt()).isEqualTo(7);
    assertThat(error.path("error").path("data").path("tally").path("code").asText())
        .isEqualTo("UPSTREAM_TIMEOUT");
    assertThat(error.path("error").path("message").asText()).contains("upstream.timeout");
  }

  @Test
  void aBrokenCallStreamEndsWithAnUnavailableErrorForItsRequest() throws Exception {
    HttpResponse<String> r = post(start(Script.SSE_BROKEN), "prompts/get");

    List<JsonNode> events = dataEvents(r.body());
    assertThat(events).hasSize(2);
    assertThat(events.get(1).path("id").asInt()).isEqualTo(7);
    assertThat(events.get(1).path("error").path("data").path("tally").path("code").asText())
        .isEqualTo("UPSTREAM_UNAVAILABLE");
  }

  @Test
  void aJsonAnswerThatStallsMidBodyIsCutNotPassedOffAsWhole() throws Exception {
    String url = start(Script.JSON_SILENT);

    Instant t0 = Instant.now();
    Throwable failure = null;
    try {
      HttpResponse<String> r = post(url, "prompts/get");
      assertThat(r.body()).as("a truncated body must not arrive as a complete answer").isNull();
    } catch (ExecutionException e) {
      failure = e.getCause();
    }
    assertThat(failure).isInstanceOf(IOException.class);
    assertThat(Duration.between(t0, Instant.now()))
        .isGreaterThanOrEqualTo(Duration.ofMillis(UPSTREAM_TIMEOUT_MS * 9 / 10));
  }

  @Test
  void anAnswerWhoseBodyNeverComesGetsATimeoutRefusal() throws Exception {
    // tools/list is read whole (to learn tool annotations) before anything reaches the client.
    HttpResponse<String> r = post(start(Script.HEAD_ONLY), "tools/list");

    assertThat(r.statusCode()).isEqualTo(504);
    JsonNode body = JSON.readTree(r.body());
    assertThat(body.path("error").path("data").path("tally").path("code").asText())
        .isEqualTo("UPSTREAM_TIMEOUT");
  }

  @Test
  void theStandaloneStreamMayStayQuietLongerThanTheTimeout() throws Exception {
    String url = start(Script.SSE_SILENT);
    HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    CompletableFuture<HttpResponse<java.util.stream.Stream<String>>> pending =
        client.sendAsync(
            HttpRequest.newBuilder(URI.create(url))
                .header("Accept", "text/event-stream")
                .header("MCP-Protocol-Version", "2025-11-25")
                .header("Mcp-Session-Id", "s1")
                .GET()
                .build(),
            HttpResponse.BodyHandlers.ofLines());
    HttpResponse<java.util.stream.Stream<String>> r = pending.get(10, TimeUnit.SECONDS);
    assertThat(r.statusCode()).isEqualTo(200);
    // The upstream writes its second notification after three timeouts of silence.
    CompletableFuture<List<String>> twoEvents =
        CompletableFuture.supplyAsync(
            () -> r.body().filter(l -> l.startsWith("data:") && l.length() > 6).limit(2).toList());
    List<String> data = twoEvents.get(30, TimeUnit.SECONDS);
    assertThat(data).hasSize(2);
    assertThat(data.get(1)).contains("\"n\":2");
  }

  private String start(Script s) throws Exception {
    script = s;
    vertx = Vertx.vertx();
    URI upstream = ScriptedUpstream.start(vertx, this::upstream);
    sidecar =
        ScriptedUpstream.sidecar(
            vertx, upstream, Duration.ofMillis(UPSTREAM_TIMEOUT_MS), Instant::now);
    return "http://127.0.0.1:" + sidecar.port() + "/mcp";
  }

  private void upstream(HttpServerRequest req) {
    HttpServerResponse resp = req.response().putHeader("Mcp-Session-Id", "s1");
    if ("GET".equals(req.method().name())) {
      resp.setChunked(true).putHeader("Content-Type", "text/event-stream");
      resp.write(notification(1));
      vertx.setTimer(3 * UPSTREAM_TIMEOUT_MS, t -> resp.write(notification(2)));
      return;
    }
    req.body()
        .onSuccess(
            b -> {
              switch (script) {
                case SSE_SILENT ->
                    resp.setChunked(true)
                        .putHeader("Content-Type", "text/event-stream")
                        .write(notification(1));
                case SSE_BROKEN -> {
                  resp.setChunked(true)
                      .putHeader("Content-Type", "text/event-stream")
                      .write(notification(1));
                  vertx.setTimer(50, t -> req.connection().close());
                }
                case JSON_SILENT ->
                    resp.setChunked(true)
                        .putHeader("Content-Type", "application/json")
                        .write("{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"messages\":[");
                case HEAD_ONLY ->
                    resp.putHeader("Content-Type", "application/json")
                        .putHeader("Content-Length", "100")
                        .writeHead();
              }
            });
  }

  private static String notification(int n) {
    return "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"n\":"
        + n
        + "}}\n\n";
  }

  /** A POST of {@code method} with id 7 at 2025-11-25 on session s1; bounded by a deadline. */
  private static HttpResponse<String> post(String url, String method) throws Exception {
    RawMcp raw = new RawMcp(url);
    raw.session = "s1";
    CompletableFuture<HttpResponse<String>> pending =
        raw.postAsync(
            "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\""
                + method
                + "\",\"params\":{\"name\":\"p\"}}");
    try {
      return pending.get(30, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      pending.cancel(true);
      throw new AssertionError("the sidecar held the answer open for 15 s", e);
    }
  }

  private static List<JsonNode> dataEvents(String sse) throws IOException {
    List<JsonNode> out = new ArrayList<>();
    for (RawMcp.Event e : RawMcp.events(sse)) {
      if (!e.data().isEmpty()) {
        out.add(JSON.readTree(e.data()));
      }
    }
    return out;
  }
}
