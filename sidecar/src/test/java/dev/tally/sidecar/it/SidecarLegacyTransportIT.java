package dev.tally.sidecar.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tally.sidecar.Sidecar;
import dev.tally.sidecar.SidecarOptions;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The legacy transport era (protocol 2025-11-25 and 2025-03-26, sessions by {@code Mcp-Session-Id})
 * over real HTTP, with the MCP Java SDK servlet server as the upstream: the format of replayed
 * answers, which headers reach the upstream, DELETE, resumption of one stream among several, and a
 * cursor whose following events were evicted from the stream buffer.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class SidecarLegacyTransportIT {
  /** A sidecar event id: 22 URL-safe characters, a dot, the event's sequence number. */
  private static final String STREAM_ID = "[A-Za-z0-9_-]{22}";

  private static final ObjectMapper JSON = new ObjectMapper();

  private SidecarHarness h;

  @AfterEach
  void stop() throws Exception {
    if (h != null) {
      h.close();
    }
  }

  private SidecarHarness real(UnaryOperator<SidecarOptions.Builder> tune) throws Exception {
    h = SidecarHarness.real(tune);
    return h;
  }

  private SidecarHarness fake(UnaryOperator<SidecarOptions.Builder> tune) throws Exception {
    h = SidecarHarness.fake(tune);
    return h;
  }

  // --- 1. replay format ------------------------------------------------------------------------

  /**
   * The SDK answers {@code tools/call} with SSE; once the sidecar has seen that, a replay to a
   * client accepting both types mirrors it: one SSE event under a sidecar id (after the priming
   * event for 2025-11-25; none for 2025-03-26), carrying the stored result under the retry's
   * JSON-RPC id.
   */
  @Test
  void replayOfACompletedCallMirrorsTheUpstreamsSseWithASidecarIdAndTheRetrysId() throws Exception {
    real(b -> b);
    RawMcp raw = new RawMcp(h.url).initialize();
    HttpResponse<String> first = postWithKey(raw, RawMcp.call(2, "create_ticket", TITLE), KEY);
    assertThat(first.statusCode()).isEqualTo(200);
    assertThat(first.headers().firstValue("Content-Type"))
        .hasValueSatisfying(v -> assertThat(v).startsWith("text/event-stream"));
    assertThat(first.body()).contains("ticket T-1 created: fmt");
    String executionId = h.upstream.idempotencyKeys.get(0);

    HttpResponse<String> retry = postWithKey(raw, RawMcp.call(7, "create_ticket", TITLE), KEY);
    assertThat(retry.statusCode()).isEqualTo(200);
    assertThat(retry.headers().allValues("Content-Type")).containsExactly("text/event-stream");
    List<RawMcp.Event> events = RawMcp.events(retry.body());
    assertThat(events).hasSize(2);
    assertThat(events.get(0).id()).matches(STREAM_ID + "\\.0");
    assertThat(events.get(0).data()).isEmpty();
    String stream = events.get(0).id().substring(0, 22);
    assertThat(events.get(1).id()).isEqualTo(stream + ".1");
    assertReplay(JSON.readTree(events.get(1).data()), 7, executionId);

    // A 2025-03-26 client expects no priming event: the answer is the one event, still under a
    // sidecar id of a fresh stream.
    RawMcp old = new RawMcp(h.url, "2025-03-26").initialize();
    HttpResponse<String> oldRetry = postWithKey(old, RawMcp.call(8, "create_ticket", TITLE), KEY);
    assertThat(oldRetry.statusCode()).isEqualTo(200);
    assertThat(oldRetry.headers().allValues("Content-Type")).containsExactly("text/event-stream");
    List<RawMcp.Event> oldEvents = RawMcp.events(oldRetry.body());
    assertThat(oldEvents).hasSize(1);
    assertThat(oldEvents.get(0).id()).matches(STREAM_ID + "\\.1").doesNotStartWith(stream);
    assertReplay(JSON.readTree(oldEvents.get(0).data()), 8, executionId);

    assertThat(h.upstream.sideEffects).hasValue(1);
    assertThat(h.upstream.idempotencyKeys).containsExactly(executionId);
  }

  /**
   * A sidecar that has not yet seen the upstream answer a {@code tools/call} (a replica, a restart)
   * answers a replay from the shared store as plain JSON: {@code Content-Type: application/json}, a
   * JSON-RPC object with the retry's id, no SSE framing.
   */
  @Test
  void replayBySidecarThatHasNotSeenAnSseToolAnswerIsPlainJson() throws Exception {
    real(b -> b);
    RawMcp raw = new RawMcp(h.url).initialize();
    HttpResponse<String> first = postWithKey(raw, RawMcp.call(2, "create_ticket", TITLE), KEY);
    assertThat(first.statusCode()).isEqualTo(200);
    String executionId = h.upstream.idempotencyKeys.get(0);

    Sidecar replica =
        Sidecar.start(
                h.vertx,
                SidecarOptions.builder(URI.create(h.upstream.url())).eventLoops(2).port(0).build(),
                h.realGate)
            .toCompletionStage()
            .toCompletableFuture()
            .get(10, TimeUnit.SECONDS);
    try {
      RawMcp viaReplica = new RawMcp("http://127.0.0.1:" + replica.port() + "/mcp");
      viaReplica.session = raw.session;
      HttpResponse<String> retry =
          postWithKey(viaReplica, RawMcp.call(9, "create_ticket", TITLE), KEY);
      assertThat(retry.statusCode()).isEqualTo(200);
      assertThat(retry.headers().allValues("Content-Type")).containsExactly("application/json");
      assertThat(retry.body()).doesNotContain("data:").doesNotContain("id:");
      assertReplay(JSON.readTree(retry.body()), 9, executionId);
    } finally {
      replica.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
    assertThat(h.upstream.sideEffects).hasValue(1);
  }

  private static final String TITLE = "{\"title\":\"fmt\"}";
  private static final String KEY = "legacy-replay-format-1";

  private static HttpResponse<String> postWithKey(RawMcp raw, String body, String key)
      throws Exception {
    return raw.http.send(
        raw.request(body).header("Idempotency-Key", key).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static void assertReplay(JsonNode answer, int id, String executionId) {
    assertThat(answer.path("jsonrpc").asText()).isEqualTo("2.0");
    assertThat(answer.path("id").isInt()).isTrue();
    assertThat(answer.path("id").intValue()).isEqualTo(id);
    assertThat(answer.path("result").path("content").path(0).path("text").asText())
        .isEqualTo("ticket T-1 created: fmt");
    assertThat(
            answer
                .path("result")
                .path("_meta")
                .path("dev.tally/replay")
                .path("executionId")
                .asText())
        .isEqualTo(executionId);
  }

  // --- 2. headers --------------------------------------------------------------------------------

  /**
   * The upstream gets the client's {@code MCP-Protocol-Version}, {@code Mcp-Session-Id} and other
   * end-to-end headers, on a forwarded request and on a dispatched call alike; {@code Connection},
   * the headers it names and {@code Keep-Alive} stay on the client's hop.
   */
  @Test
  void sessionAndVersionHeadersReachTheUpstreamAndHopByHopHeadersDoNot() throws Exception {
    fake(b -> b);
    RawMcp raw = new RawMcp(h.url).initialize();
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("Content-Type", "application/json");
    headers.put("Accept", "application/json, text/event-stream");
    headers.put("MCP-Protocol-Version", RawMcp.VERSION);
    headers.put("Mcp-Session-Id", raw.session);
    headers.put("Connection", "x-custom, x-other");
    headers.put("X-Custom", "hop-only");
    headers.put("X-Other", "hop-only-too");
    headers.put("Keep-Alive", "timeout=5");
    headers.put("X-End-To-End", "kept");

    for (String body :
        List.of(
            "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}",
            RawMcp.call(6, "create_ticket", "{\"title\":\"hdr\"}"))) {
      int before = h.upstream.requests.size();
      RawResponse r = exchange(sidecarPort(), "POST", headers, body);
      assertThat(r.status()).as(body).isEqualTo(200);
      assertThat(r.body()).contains(body.contains("ping") ? "\"id\":5" : "\"id\":6");
      List<SdkUpstream.Seen> seen = since(before);
      assertThat(seen).as(body).hasSize(1);
      SdkUpstream.Seen up = seen.get(0);
      assertThat(up.method()).isEqualTo("POST");
      assertThat(up.header("MCP-Protocol-Version")).containsExactly(RawMcp.VERSION);
      assertThat(up.header("Mcp-Session-Id")).containsExactly(raw.session);
      assertThat(up.header("X-End-To-End")).containsExactly("kept");
      assertThat(up.header("X-Custom")).as(body).isEmpty();
      assertThat(up.header("X-Other")).as(body).isEmpty();
      assertThat(up.header("Keep-Alive")).as(body).isEmpty();
      assertThat(String.join(",", up.header("Connection")).toLowerCase(Locale.ROOT))
          .as(body)
          .doesNotContain("x-custom")
          .doesNotContain("x-other");
    }
    assertThat(h.upstream.sideEffects).hasValue(1);
  }

  // --- 3. DELETE ---------------------------------------------------------------------------------

  /**
   * A DELETE ending the session goes to the upstream with the session id, and the upstream's status
   * comes back: the SDK forgets the session (a later request on it gets the SDK's 404), and a
   * DELETE of a session the SDK does not know gets its refusal, not a sidecar-made answer.
   */
  @Test
  void deleteIsRelayedToTheUpstreamWhichEndsTheSession() throws Exception {
    fake(b -> b);
    RawMcp raw = new RawMcp(h.url).initialize();
    assertThat(raw.post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}").statusCode())
        .isEqualTo(200);

    int before = h.upstream.requests.size();
    HttpResponse<String> deleted = delete(raw, raw.session);
    SdkUpstream.Seen up = only(before, "DELETE");
    assertThat(up.header("Mcp-Session-Id")).containsExactly(raw.session);
    assertThat(up.header("MCP-Protocol-Version")).containsExactly(RawMcp.VERSION);
    int upstreamStatus = up.status().get(5, TimeUnit.SECONDS);
    assertThat(upstreamStatus).isBetween(200, 299);
    assertThat(deleted.statusCode()).isEqualTo(upstreamStatus);

    // The upstream ended the session: the next request on it is the SDK's to refuse.
    before = h.upstream.requests.size();
    HttpResponse<String> after = raw.post("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}");
    SdkUpstream.Seen refused = only(before, "POST");
    assertThat(refused.status().get(5, TimeUnit.SECONDS)).isEqualTo(404);
    assertThat(after.statusCode()).isEqualTo(404);

    // Deleting it again: the upstream no longer knows it, and its answer is relayed as is.
    before = h.upstream.requests.size();
    HttpResponse<String> again = delete(raw, raw.session);
    int againStatus = only(before, "DELETE").status().get(5, TimeUnit.SECONDS);
    assertThat(againStatus).isBetween(400, 499);
    assertThat(again.statusCode()).isEqualTo(againStatus);
  }

  private HttpResponse<String> delete(RawMcp raw, String session) throws Exception {
    return raw.http.send(
        HttpRequest.newBuilder(URI.create(h.url))
            .timeout(Duration.ofSeconds(20))
            .header("MCP-Protocol-Version", raw.version)
            .header("Mcp-Session-Id", session)
            .DELETE()
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** The requests the upstream received since it had received {@code before}. */
  private List<SdkUpstream.Seen> since(int before) {
    List<SdkUpstream.Seen> all = List.copyOf(h.upstream.requests);
    return all.subList(before, all.size());
  }

  /** The one request the upstream received since {@code before}, which used {@code method}. */
  private SdkUpstream.Seen only(int before, String method) {
    List<SdkUpstream.Seen> seen = since(before);
    assertThat(seen).extracting(SdkUpstream.Seen::method).containsExactly(method);
    return seen.get(0);
  }

  // --- 4. resume one stream of several --------------------------------------------------------

  /**
   * Two calls of one session stream at once; both clients drop, the calls finish, and each cursor
   * resumes its own stream only: A's resumption carries A's answer (its JSON-RPC id), never B's.
   */
  @Test
  void resumingOneOfTwoDroppedStreamsOfASessionReplaysThatStreamOnly() throws Exception {
    fake(b -> b);
    RawMcp raw = new RawMcp(h.url).initialize();
    h.upstream.entered = new CountDownLatch(2);
    h.upstream.hold = new CountDownLatch(1);
    HttpResponse<InputStream> a =
        raw.postStream(RawMcp.call(21, "create_ticket", "{\"title\":\"alpha\"}"));
    HttpResponse<InputStream> b =
        raw.postStream(RawMcp.call(22, "create_ticket", "{\"title\":\"bravo\"}"));
    assertThat(a.statusCode()).isEqualTo(200);
    assertThat(b.statusCode()).isEqualTo(200);
    String cursorA = RawMcp.read(RawMcp.reader(a), 1).get(0).id();
    String cursorB = RawMcp.read(RawMcp.reader(b), 1).get(0).id();
    assertThat(cursorA).matches(STREAM_ID + "\\.0");
    assertThat(cursorB).matches(STREAM_ID + "\\.0");
    String streamA = cursorA.substring(0, 22);
    String streamB = cursorB.substring(0, 22);
    assertThat(streamA).isNotEqualTo(streamB);
    assertThat(h.upstream.entered.await(10, TimeUnit.SECONDS)).isTrue();

    a.body().close();
    b.body().close();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (h.sidecar.inFlight() > 0 && System.nanoTime() < deadline) {
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
    }
    assertThat(h.sidecar.inFlight()).isZero();
    h.upstream.release();
    deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (h.gate.reports.stream().filter("completed:200"::equals).count() < 2
        && System.nanoTime() < deadline) {
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
    }
    assertThat(h.gate.reports).filteredOn("completed:200"::equals).hasSize(2);

    List<RawMcp.Event> resumedA = resumeToEnd(raw, cursorA);
    assertThat(resumedA).hasSize(1);
    assertThat(resumedA.get(0).id()).isEqualTo(streamA + ".1");
    JsonNode answerA = JSON.readTree(resumedA.get(0).data());
    assertThat(answerA.path("id").intValue()).isEqualTo(21);
    assertThat(answerA.path("result").path("content").path(0).path("text").asText())
        .endsWith("created: alpha");
    assertThat(resumedA)
        .noneSatisfy(e -> assertThat(e.data()).contains("\"id\":22"))
        .noneSatisfy(e -> assertThat(e.data()).contains("bravo"))
        .noneSatisfy(e -> assertThat(e.id()).startsWith(streamB));

    List<RawMcp.Event> resumedB = resumeToEnd(raw, cursorB);
    assertThat(resumedB).hasSize(1);
    assertThat(resumedB.get(0).id()).isEqualTo(streamB + ".1");
    assertThat(JSON.readTree(resumedB.get(0).data()).path("id").intValue()).isEqualTo(22);
    assertThat(resumedB.get(0).data()).contains("created: bravo").doesNotContain("alpha");
    assertThat(h.upstream.sideEffects).hasValue(2);
  }

  /** Resumes after {@code cursor} and reads the resumed stream to its end. */
  private static List<RawMcp.Event> resumeToEnd(RawMcp raw, String cursor) throws Exception {
    HttpResponse<InputStream> r = raw.resume(cursor);
    assertThat(r.statusCode()).isEqualTo(200);
    BufferedReader in = RawMcp.reader(r);
    List<RawMcp.Event> events = RawMcp.read(in, Integer.MAX_VALUE);
    in.close();
    return events;
  }

  // --- 5. evicted cursor -------------------------------------------------------------------------

  /**
   * With room for one event per stream, a cursor whose next event was evicted cannot be resumed
   * without a gap: the GET is refused at once with 404 and {@code UNKNOWN_EVENT_ID} (JSON-RPC
   * -32600), while the cursor of the event still kept resumes on the same stream.
   */
  @Test
  void cursorWhoseNextEventWasEvictedIsRefusedWith404UnknownEventId() throws Exception {
    fake(b -> b.streamMaxEvents(1));
    RawMcp raw = new RawMcp(h.url).initialize();
    HttpRequest get =
        HttpRequest.newBuilder(URI.create(h.url))
            .header("Accept", "text/event-stream")
            .header("MCP-Protocol-Version", raw.version)
            .header("Mcp-Session-Id", raw.session)
            .GET()
            .build();
    CompletableFuture<HttpResponse<InputStream>> opened =
        raw.http.sendAsync(get, HttpResponse.BodyHandlers.ofInputStream());
    HttpResponse<InputStream> standalone = opened.get(10, TimeUnit.SECONDS);
    assertThat(standalone.statusCode()).isEqualTo(200);
    BufferedReader in = RawMcp.reader(standalone);
    String priming = RawMcp.read(in, 1).get(0).id();
    assertThat(priming).matches(STREAM_ID + "\\.0");
    String stream = priming.substring(0, 22);

    // The priming event is the sidecar's own: wait until the upstream's GET handler has run and
    // registered the session's stream, or the notifications go nowhere (seen once in CI: a hang).
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (h.upstream.requests.stream()
        .noneMatch(r -> r.method().equals("GET") && r.status().isDone())) {
      assertThat(System.nanoTime() - until).as("the upstream saw the GET").isNegative();
      Thread.sleep(5);
    }
    h.upstream.notifyToolsListChanged();
    h.upstream.notifyToolsListChanged();
    List<RawMcp.Event> live = RawMcp.read(in, 2);
    assertThat(live).extracting(RawMcp.Event::id).containsExactly(stream + ".1", stream + ".2");
    assertThat(live)
        .allSatisfy(e -> assertThat(e.data()).contains("notifications/tools/list_changed"));
    standalone.body().close();

    // Event .1 was evicted when .2 arrived: resuming after .0 would skip it.
    long started = System.nanoTime();
    HttpResponse<InputStream> evicted = raw.resume(priming);
    // Answered, not held open until the client's own 20 s timeout (a generous bound under load).
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(15));
    if (evicted.statusCode() != 404) {
      evicted.body().close();
    }
    assertThat(evicted.statusCode()).isEqualTo(404);
    String body = new String(evicted.body().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(evicted.headers().firstValue("Content-Type")).hasValue("application/json");
    JsonNode error = JSON.readTree(body);
    assertThat(error.path("error").path("code").intValue()).isEqualTo(-32600);
    assertThat(body).contains("UNKNOWN_EVENT_ID").contains("Last-Event-ID");
    assertThat(body).doesNotContain("list_changed");

    // The same stream still resumes after .1, whose successor is kept: the refusal was the gap.
    HttpResponse<InputStream> kept = raw.resume(stream + ".1");
    assertThat(kept.statusCode()).isEqualTo(200);
    List<RawMcp.Event> rest = RawMcp.read(RawMcp.reader(kept), 1);
    assertThat(rest).extracting(RawMcp.Event::id).containsExactly(stream + ".2");
    kept.body().close();
  }

  // --- raw HTTP/1.1 ------------------------------------------------------------------------------

  private int sidecarPort() {
    return h.sidecar.port();
  }

  record RawResponse(int status, Map<String, String> headers, String body) {}

  /**
   * One HTTP/1.1 exchange on a plain socket: the JDK client refuses to send {@code Connection} and
   * {@code Keep-Alive}, which this test needs. Reads a fixed-length or chunked body to its end.
   */
  private static RawResponse exchange(
      int port, String method, Map<String, String> headers, String body) throws IOException {
    byte[] payload = body.getBytes(StandardCharsets.UTF_8);
    StringBuilder head = new StringBuilder();
    head.append(method).append(" /mcp HTTP/1.1\r\n");
    head.append("Host: 127.0.0.1:").append(port).append("\r\n");
    headers.forEach((k, v) -> head.append(k).append(": ").append(v).append("\r\n"));
    head.append("Content-Length: ").append(payload.length).append("\r\n\r\n");
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
      s.setSoTimeout(20_000);
      OutputStream out = s.getOutputStream();
      out.write(head.toString().getBytes(StandardCharsets.US_ASCII));
      out.write(payload);
      out.flush();
      InputStream in = s.getInputStream();
      String status = line(in);
      int code = Integer.parseInt(status.split(" ")[1]);
      Map<String, String> respHeaders = new LinkedHashMap<>();
      for (String l = line(in); !l.isEmpty(); l = line(in)) {
        int colon = l.indexOf(':');
        respHeaders.put(
            l.substring(0, colon).trim().toLowerCase(Locale.ROOT), l.substring(colon + 1).trim());
      }
      ByteArrayOutputStream content = new ByteArrayOutputStream();
      if ("chunked".equalsIgnoreCase(respHeaders.get("transfer-encoding"))) {
        while (true) {
          String size = line(in);
          int semi = size.indexOf(';');
          int n = Integer.parseInt((semi < 0 ? size : size.substring(0, semi)).trim(), 16);
          if (n == 0) {
            break;
          }
          content.write(in.readNBytes(n));
          line(in);
        }
      } else if (respHeaders.containsKey("content-length")) {
        content.write(in.readNBytes(Integer.parseInt(respHeaders.get("content-length"))));
      }
      return new RawResponse(
          code, respHeaders, new String(content.toByteArray(), StandardCharsets.UTF_8));
    }
  }

  private static String line(InputStream in) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    int c;
    while ((c = in.read()) != -1 && c != '\n') {
      if (c != '\r') {
        b.write(c);
      }
    }
    if (c == -1 && b.size() == 0) {
      throw new IOException("connection closed");
    }
    return b.toString(StandardCharsets.US_ASCII);
  }
}
