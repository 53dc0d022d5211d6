package dev.tally.sidecar.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tally.core.contract.ContractRegistry;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.execution.ExecutionState;
import dev.tally.sidecar.SidecarOptions;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An upstream that closes a call's POST stream after a priming event and before its answer (SSE
 * polling, SEP-1699): the sidecar resumes it with GET + {@code Last-Event-ID} itself, and gives up
 * as on an answerless end when the upstream refuses or brings nothing new. The client sees what the
 * upstream meant: its stream ends after the relayed priming cursor and retry delay, and it resumes
 * from the sidecar's buffer, as an SSE polling client does.
 */
class SidecarUpstreamPollingIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** What the scripted upstream does with a GET + Last-Event-ID. */
  enum OnResume {
    ANSWER,
    REFUSE,
    NOTHING_NEW
  }

  private final List<String> lastEventIds = new CopyOnWriteArrayList<>();
  private final List<String> executionIds = new CopyOnWriteArrayList<>();
  private volatile OnResume onResume;
  private volatile JsonNode callId;
  private Vertx vertx;
  private GatedSidecar gated;

  @AfterEach
  void stop() throws Exception {
    if (gated != null) {
      gated.close();
    }
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  void aCallWhoseStreamClosesBeforeItsAnswerIsAnsweredFromTheResumedStream() throws Exception {
    String body = call(start(OnResume.ANSWER));

    assertThat(body).contains("\"id\":7").contains("done after polling");
    assertThat(body).doesNotContain("outcome is unknown");
    assertThat(lastEventIds).containsExactly("s1_0");
    assertThat(state()).hasValue(ExecutionState.DELIVERED);
  }

  @Test
  void aRefusedResumptionEndsTheCallAsAnAnswerlessEndWould() throws Exception {
    String body = call(start(OnResume.REFUSE));

    assertThat(body).contains("\"id\":7").contains("outcome is unknown");
    assertThat(lastEventIds).containsExactly("s1_0");
    assertThat(state()).hasValue(ExecutionState.OUTCOME_UNKNOWN);
  }

  @Test
  void resumptionsThatBringNothingNewStopAfterTheLimit() throws Exception {
    String body = call(start(OnResume.NOTHING_NEW));

    assertThat(body).contains("\"id\":7").contains("outcome is unknown");
    assertThat(lastEventIds).hasSize(3).containsOnly("s1_0");
    assertThat(state()).hasValue(ExecutionState.OUTCOME_UNKNOWN);
  }

  /** Starts the scripted upstream and a sidecar (real gate, memory store) in front of it. */
  private String start(OnResume mode) throws Exception {
    onResume = mode;
    vertx = Vertx.vertx();
    URI upstream = ScriptedUpstream.start(vertx, this::upstream);
    SidecarOptions options = SidecarOptions.builder(upstream).port(0).build();
    gated = GatedSidecar.start(vertx, options, ContractRegistry.defaults(), "polling");
    return gated.url();
  }

  private void upstream(HttpServerRequest req) {
    if (req.method() == HttpMethod.POST) {
      req.body()
          .onSuccess(
              b -> {
                JsonNode call = readTree(b.toString(StandardCharsets.UTF_8));
                callId = call.path("id");
                executionIds.add(
                    call.path("params").path("_meta").path("dev.tally/executionId").asText());
                // A priming event with an id and a retry delay, then the stream closes mid-call.
                sse(req).end("id: s1_0\nretry: 20\ndata: \n\n");
              });
      return;
    }
    lastEventIds.add(String.valueOf(req.getHeader("Last-Event-ID")));
    switch (onResume) {
      case ANSWER ->
          sse(req)
              .end(
                  "id: s1_1\ndata: {\"jsonrpc\":\"2.0\",\"id\":"
                      + callId
                      + ",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"done after"
                      + " polling\"}]}}\n\n");
      case REFUSE ->
          req.response()
              .setStatusCode(404)
              .putHeader("Content-Type", "application/json")
              .end(
                  "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32000,\"message\":\"gone\"}}");
      case NOTHING_NEW -> sse(req).end();
    }
  }

  private static io.vertx.core.http.HttpServerResponse sse(HttpServerRequest req) {
    return req.response()
        .setChunked(true)
        .putHeader("Content-Type", "text/event-stream")
        .putHeader("Mcp-Session-Id", "s1");
  }

  /**
   * A tools/call at 2025-11-25 on session s1 by a client that follows SSE polling: when its POST
   * stream ends without the answer after giving it an event id, it resumes with GET + {@code
   * Last-Event-ID}. Returns every SSE body it got, in order.
   */
  private static String call(String url) throws Exception {
    String post = post(url);
    assertThat(post)
        .as("the relayed priming event, with the upstream's retry")
        .contains("retry: 20");
    if (post.contains("\"id\":7")) {
      return post;
    }
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?m)^id: (\\S+)$").matcher(post);
    String last = null;
    while (m.find()) {
      last = m.group(1);
    }
    assertThat(last).as("an event id to resume from").isNotNull();
    HttpResponse<String> resumed =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(url))
                    .timeout(Duration.ofSeconds(20))
                    .header("Accept", "text/event-stream")
                    .header("MCP-Protocol-Version", "2025-11-25")
                    .header("Mcp-Session-Id", "s1")
                    .header("Last-Event-ID", last)
                    .GET()
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(resumed.statusCode()).isEqualTo(200);
    return post + resumed.body();
  }

  private static String post(String url) throws Exception {
    HttpResponse<String> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(url))
                    .timeout(Duration.ofSeconds(20))
                    .header("Content-Type", "application/json")
                    .header("Accept", "application/json, text/event-stream")
                    .header("MCP-Protocol-Version", "2025-11-25")
                    .header("Mcp-Session-Id", "s1")
                    .POST(
                        HttpRequest.BodyPublishers.ofString(
                            "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":"
                                + "{\"name\":\"create_ticket\",\"arguments\":{\"title\":\"p\"}}}"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    return r.body();
  }

  /** The state of the one execution the upstream saw, once it left {@code dispatched}. */
  private Optional<ExecutionState> state() throws Exception {
    assertThat(executionIds).hasSize(1);
    ExecutionId id = ExecutionId.parse(executionIds.get(0));
    return gated.awaitState(
        id,
        st -> st != ExecutionState.DISPATCHED && st != ExecutionState.COMPLETED,
        Duration.ofSeconds(10));
  }

  private static JsonNode readTree(String s) {
    try {
      return JSON.readTree(s);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
