package dev.tally.sidecar.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tally.core.contract.ContractRegistry;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.execution.ExecutionState;
import dev.tally.sidecar.SidecarOptions;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code upstream.timeout} counts the silence of one request, never the idle history of the pooled
 * connection it travels on (issue "The promise holds under real failures", case 7). One event loop
 * and one upstream connection, so the second call reuses the first call's connection after it sat
 * idle for most of the timeout; the second call then takes half the timeout and must complete.
 *
 * <p>Margins for a loaded machine: with a timeout of {@value #TIMEOUT_MS} ms, an idle gap of
 * {@value #IDLE_MS} ms and an answer after {@value #ANSWER_MS} ms, a limit that counted from the
 * connection's last read would cut the call {@code TIMEOUT_MS - IDLE_MS} = 1500 ms into it, 1 s
 * before its answer, for any idle gap up to the whole timeout; counted per request the answer comes
 * 2.5 s before the limit.
 */
class SidecarIdleConnectionIT {
  private static final long TIMEOUT_MS = 5000;
  private static final long IDLE_MS = 3500;
  private static final long ANSWER_MS = 2500;
  private static final ObjectMapper JSON = new ObjectMapper();

  private Vertx vertx;
  private GatedSidecar gated;
  private final AtomicInteger connections = new AtomicInteger();
  private final List<String> executionIds = new CopyOnWriteArrayList<>();

  @BeforeEach
  void start() throws Exception {
    vertx = Vertx.vertx();
    URI upstream =
        ScriptedUpstream.start(vertx, this::upstream, c -> connections.incrementAndGet());
    gated =
        GatedSidecar.start(
            vertx,
            SidecarOptions.builder(upstream)
                .port(0)
                .eventLoops(1)
                .upstreamMaxConnections(1)
                .upstreamTimeout(Duration.ofMillis(TIMEOUT_MS))
                .build(),
            ContractRegistry.defaults(),
            "idle-connection");
  }

  @AfterEach
  void stop() throws Exception {
    if (gated != null) {
      gated.close();
    }
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  void aCallOnAConnectionIdleForMostOfTheTimeoutIsNotCut() throws Exception {
    RawMcp raw = new RawMcp(gated.url());
    raw.session = "s1";
    HttpResponse<String> warm = raw.post(RawMcp.call(1, "create_ticket", "{\"title\":\"warm\"}"));
    assertThat(result(warm).path("result").path("isError").asBoolean()).as(warm.body()).isFalse();
    assertThat(connections.get()).isOne();

    // The connection sits in the pool for most of upstream.timeout.
    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(IDLE_MS));

    long t0 = System.nanoTime();
    HttpResponse<String> slow =
        raw.post(
            RawMcp.call(2, "create_ticket", "{\"title\":\"slow\",\"delayMs\":" + ANSWER_MS + "}"));
    long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);

    JsonNode answer = result(slow);
    assertThat(answer.path("result").path("content").path(0).path("text").asText())
        .as("the slow call's answer (after %d ms): %s", tookMs, slow.body())
        .isEqualTo("created slow");
    assertThat(connections.get()).as("the second call reused the pooled connection").isOne();
    assertThat(executionIds).hasSize(2);
    assertThat(
            gated.awaitState(
                ExecutionId.parse(executionIds.get(1)),
                s -> s == ExecutionState.DELIVERED,
                Duration.ofSeconds(10)))
        .contains(ExecutionState.DELIVERED);
  }

  private void upstream(HttpServerRequest req) {
    req.body()
        .onSuccess(
            b -> {
              JsonNode msg;
              try {
                msg = JSON.readTree(b.getBytes());
              } catch (java.io.IOException e) {
                req.response().setStatusCode(400).end();
                return;
              }
              JsonNode params = msg.path("params");
              executionIds.add(params.path("_meta").path("dev.tally/executionId").asText());
              long delay = params.path("arguments").path("delayMs").asLong(0);
              String body =
                  "{\"jsonrpc\":\"2.0\",\"id\":"
                      + msg.path("id")
                      + ",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"created "
                      + params.path("arguments").path("title").asText()
                      + "\"}]}}";
              Runnable answer =
                  () ->
                      req.response()
                          .putHeader("Content-Type", "application/json")
                          .putHeader("Mcp-Session-Id", "s1")
                          .end(body);
              if (delay == 0) {
                answer.run();
              } else {
                vertx.setTimer(delay, t -> answer.run());
              }
            });
  }

  private static JsonNode result(HttpResponse<String> r) throws Exception {
    String body = r.body();
    if (body.startsWith("{")) {
      return JSON.readTree(body);
    }
    List<RawMcp.Event> events = RawMcp.events(body);
    return JSON.readTree(events.get(events.size() - 1).data());
  }
}
