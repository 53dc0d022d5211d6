package dev.tally.sidecar.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.sidecar.Sidecar;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An upstream that ends the session's standalone GET stream (a polling server, a restarted one):
 * the sidecar reopens it upstream and the client's stream goes on, with {@code Last-Event-ID} when
 * the upstream gave ids; a refused reopening, or reopenings that bring nothing, end the client's
 * stream instead of leaving it hanging.
 */
class SidecarStandaloneReopenIT {
  /** What the scripted upstream does with the second and later GETs. */
  enum OnReopen {
    NOTIFY,
    REFUSE,
    NOTHING,
    /** Each reopened stream stays open past {@code STAYED_OPEN} (by the clock), then ends empty. */
    LONG_LIVED
  }

  /** The sidecar's upstream.timeout here: a reopened standalone stream must outlive it idle. */
  private static final long UPSTREAM_TIMEOUT_MS = 300;

  /** Reopenings the LONG_LIVED upstream answers before it refuses. */
  private static final int LONG_LIVED_REOPENS = 6;

  private final List<String> gets = new CopyOnWriteArrayList<>();
  private volatile OnReopen onReopen;
  private volatile boolean ids;
  private final AtomicReference<Instant> now =
      new AtomicReference<>(Instant.parse("2026-12-01T00:00:00Z"));
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
  void anEndedStandaloneStreamIsReopenedFromTheUpstreamsLastId() throws Exception {
    List<String> events = readUntil(start(OnReopen.NOTIFY, true), 3);

    assertThat(events).hasSize(3);
    assertThat(events.get(0)).contains("\"n\":1");
    assertThat(events.get(1)).contains("\"n\":2");
    assertThat(events.get(2)).as("still open after a quiet spell").contains("\"n\":3");
    assertThat(gets).containsExactly("none", "g_1");
  }

  @Test
  void anUpstreamWithoutIdsGetsAPlainGetAgain() throws Exception {
    List<String> events = readUntil(start(OnReopen.NOTIFY, false), 2);

    assertThat(events).extracting(e -> e.contains("\"n\":2")).containsExactly(false, true);
    assertThat(gets).containsExactly("none", "none");
  }

  @Test
  void aRefusedReopeningEndsTheClientsStream() throws Exception {
    List<String> events = readUntil(start(OnReopen.REFUSE, true), 5);

    assertThat(events).hasSize(1);
    assertThat(gets).containsExactly("none", "g_1");
  }

  @Test
  void reopeningsThatBringNothingStopAfterTheLimit() throws Exception {
    List<String> events = readUntil(start(OnReopen.NOTHING, true), 5);

    assertThat(events).hasSize(1);
    assertThat(gets).hasSize(1 + 3).containsOnly("none", "g_1");
  }

  @Test
  void reopenedStreamsThatStayedOpenLongDoNotCountTowardsTheLimit() throws Exception {
    List<String> events = readUntil(start(OnReopen.LONG_LIVED, true), 5);

    assertThat(events).hasSize(1);
    assertThat(gets).hasSize(1 + LONG_LIVED_REOPENS + 1);
  }

  private String start(OnReopen mode, boolean withIds) throws Exception {
    onReopen = mode;
    ids = withIds;
    vertx = Vertx.vertx();
    URI upstream = ScriptedUpstream.start(vertx, this::upstream);
    sidecar =
        ScriptedUpstream.sidecar(vertx, upstream, Duration.ofMillis(UPSTREAM_TIMEOUT_MS), now::get);
    return "http://127.0.0.1:" + sidecar.port() + "/mcp";
  }

  private void upstream(HttpServerRequest req) {
    String last = req.getHeader("Last-Event-ID");
    gets.add(last == null ? "none" : last);
    if (gets.size() == 1) {
      // One notification (and a short retry delay), then the upstream ends the stream.
      sse(req).end((ids ? "id: g_1\n" : "") + "retry: 20\n" + notification(1));
      return;
    }
    switch (onReopen) {
      case NOTIFY -> {
        // Stays open, and quiet for longer than upstream.timeout before the next notification.
        HttpServerResponse resp = sse(req);
        resp.write((ids ? "id: g_2\n" : "") + notification(2));
        vertx.setTimer(3 * UPSTREAM_TIMEOUT_MS, t -> resp.write(notification(3)));
      }
      case REFUSE ->
          req.response()
              .setStatusCode(404)
              .putHeader("Content-Type", "application/json")
              .end(
                  "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32001,\"message\":\"x\"}}");
      case NOTHING -> sse(req).end();
      case LONG_LIVED -> {
        if (gets.size() > 1 + LONG_LIVED_REOPENS) {
          req.response().setStatusCode(404).end();
          return;
        }
        HttpServerResponse resp = sse(req);
        resp.writeHead();
        vertx.setTimer(
            30,
            t -> {
              now.updateAndGet(i -> i.plusSeconds(11)); // past SseRelay.STAYED_OPEN (10 s)
              resp.end();
            });
      }
    }
  }

  private static String notification(int n) {
    return "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"n\":"
        + n
        + "}}\n\n";
  }

  private static HttpServerResponse sse(HttpServerRequest req) {
    return req.response().setChunked(true).putHeader("Content-Type", "text/event-stream");
  }

  /**
   * Opens the standalone stream on session s1 and returns the data lines of its events until {@code
   * count} arrived or the stream ended (bounded by a timeout).
   */
  private static List<String> readUntil(String url, int count) throws Exception {
    HttpResponse<InputStream> r =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .build()
            .send(
                HttpRequest.newBuilder(URI.create(url))
                    .timeout(Duration.ofSeconds(20))
                    .header("Accept", "text/event-stream")
                    .header("MCP-Protocol-Version", "2025-06-18")
                    .header("Mcp-Session-Id", "s1")
                    .GET()
                    .build(),
                HttpResponse.BodyHandlers.ofInputStream());
    assertThat(r.statusCode()).isEqualTo(200);
    List<String> data = new ArrayList<>();
    // A stream that neither delivers nor ends is a failure, not a hang: close it at the deadline.
    ScheduledExecutorService watchdog = Executors.newSingleThreadScheduledExecutor();
    AtomicBoolean expired = new AtomicBoolean();
    watchdog.schedule(
        () -> {
          expired.set(true);
          r.body().close();
          return null;
        },
        15,
        TimeUnit.SECONDS);
    try (BufferedReader in =
        new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
      String line;
      while (data.size() < count && (line = in.readLine()) != null) {
        if (line.startsWith("data:") && line.length() > 6) {
          data.add(line);
        }
      }
    } catch (IOException e) {
      assertThat(expired).as("the stream broke before the deadline: " + e).isTrue();
    } finally {
      watchdog.shutdownNow();
    }
    assertThat(expired).as("the stream neither delivered nor ended within 15 s").isFalse();
    return data;
  }
}
