package dev.tally.sidecar.process;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostile clients (issue 21 cases 1, 2, 3 for JSON answers, 4, 5, 7's HTTP/2 switch and 8) against
 * one real {@code tally serve} process with a 128 MiB heap and a journal store, each attack sent as
 * raw bytes on loopback sockets. After every case the sidecar must still answer {@code /readyz} and
 * a real {@code tools/call}, and its output must hold no {@code OutOfMemoryError}.
 */
class HostileClientsIT {
  private static final Duration START = Duration.ofSeconds(60);
  private static final Duration WAIT = Duration.ofSeconds(30);

  /** Short limits so that each case is quick; the defaults are documented in config/README.md. */
  private static final String LIMITS =
      "sidecar:\n"
          + "  maxConnections: 64\n"
          + "  maxConnectionsPerClient: 64\n"
          + "  headerTimeout: 2s\n"
          + "  idleTimeout: 3s\n"
          + "  requestBodyTimeout: 3s\n"
          + "  maxBufferedRequestBytes: 8MiB\n"
          + "limits:\n"
          + "  maxResultBytes: 12MiB\n";

  @TempDir static Path dir;

  private static CountingUpstream upstream;
  private static McpClient agent;
  private static TallyProcess tally;
  private final List<Socket> sockets = new ArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    upstream = CountingUpstream.start();
    agent = new McpClient();
    Path config = dir.resolve("tally.yaml");
    Files.writeString(
        config,
        "upstream:\n  url: "
            + upstream.url()
            + "\nstore: journal:"
            + dir.resolve("data").resolve("journal")
            + "\n"
            // -Dhostile.defaultLimits=true: no sidecar keys, to run this class against a build
            // that predates them and see each case fail there.
            + (Boolean.getBoolean("hostile.defaultLimits") ? "" : LIMITS));
    tally = TallyProcess.serve(dir, config, TallyProcess.SMALL_JVM, Map.of()).awaitListening(START);
    stillServes();
  }

  @AfterEach
  void closeSockets() {
    for (Socket s : sockets) {
      try {
        s.close();
      } catch (IOException e) {
        // gone already
      }
    }
    sockets.clear();
  }

  @AfterAll
  static void stop() throws Exception {
    if (tally != null) {
      tally.close();
    }
    agent.close();
    upstream.close();
  }

  /**
   * Case 1: 100 connections each declaring a 4,000,000-byte body and sending one byte. The body
   * reader allocated the declared length up front: 400 MB on a 128 MiB heap.
   */
  @Test
  void declaredLengthsCostNothingUntilTheirBytesArrive() throws Exception {
    for (int i = 0; i < 60; i++) {
      Socket s = open();
      send(s, head("POST", 4_000_000, "Content-Type: application/json") + "{");
    }
    stillServes();
    assertThat(metric("tally_http_buffered_request_bytes")).isLessThan(1 << 20);
    closeSockets();
    // The stalled bodies are answered 408 once sidecar.requestBodyTimeout passes.
    Socket slow = open();
    send(slow, head("POST", 100, "Content-Type: application/json") + "{\"jsonrpc\":");
    String answer = readUntilClosed(slow);
    assertThat(answer).startsWith("HTTP/1.1 408").contains("REQUEST_TIMEOUT");
    stillServes();
  }

  /**
   * Case 1 on a kept-alive connection: the body timeout is watched by the connection's own lazy
   * timer, which earlier requests on it left armed for their idle timeout; a body that stalls after
   * several answered requests still gets its 408 once sidecar.requestBodyTimeout passes, and the
   * connection is closed.
   */
  @Test
  void aBodyStalledAfterAnsweredRequestsOnTheSameConnectionGetsItsTimeout() throws Exception {
    long before = Math.max(0, limitHits("request_body_timeout"));
    Socket s = open();
    String ping = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}";
    for (int i = 0; i < 3; i++) {
      send(s, head("POST", ping.length(), "Content-Type: application/json") + ping);
      String answer = readSome(s);
      assertThat(answer).startsWith("HTTP/1.1 200");
    }
    long sent = System.nanoTime();
    send(s, head("POST", 100, "Content-Type: application/json") + "{\"jsonrpc\":");
    String answer = readUntilClosed(s);
    long waited = Duration.ofNanos(System.nanoTime() - sent).toMillis();
    assertThat(answer).startsWith("HTTP/1.1 408").contains("REQUEST_TIMEOUT");
    // A timer fires no earlier than it was set for: the 408 waited out the body timeout (3 s).
    assertThat(waited).isGreaterThanOrEqualTo(2_900);
    assertThat(limitHits("request_body_timeout")).isGreaterThan(before);
    stillServes();
  }

  /** Case 1, the global budget: bodies that together pass it get 503 and nothing else suffers. */
  @Test
  void bodiesBeyondTheBufferedByteBudgetAreRefusedWithOverloaded() throws Exception {
    long before = limitHits("max_buffered_request_bytes");
    byte[] mib = "x".repeat(1 << 20).getBytes(StandardCharsets.US_ASCII);
    List<Socket> held = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      Socket s = open();
      send(s, head("POST", 3 << 20, "Content-Type: application/json") + "{\"a\":\"");
      s.getOutputStream().write(mib);
      s.getOutputStream().flush();
      held.add(s);
    }
    Poll.until(
        WAIT,
        () -> limitHits("max_buffered_request_bytes") > before,
        () -> "no body was refused over the 8 MiB budget");
    // The refusal is counted before its 503 is written: read the held sockets until one has it.
    List<StringBuilder> got = new ArrayList<>();
    held.forEach(s -> got.add(new StringBuilder()));
    Poll.until(
        WAIT,
        () -> {
          try {
            for (int i = 0; i < held.size(); i++) {
              held.get(i).setSoTimeout(50);
              got.get(i).append(readSome(held.get(i)));
            }
          } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
          return got.stream().anyMatch(b -> b.indexOf("OVERLOADED") >= 0);
        },
        () -> "no held connection got its 503");
    int overloaded = 0;
    for (StringBuilder b : got) {
      if (b.toString().startsWith("HTTP/1.1 503")) {
        assertThat(b.toString()).contains("OVERLOADED").contains("sidecar.maxBufferedRequestBytes");
        overloaded++;
      }
    }
    assertThat(overloaded).isPositive();
    assertThat(metric("tally_http_buffered_request_bytes")).isLessThanOrEqualTo(8L << 20);
    closeSockets();
    Poll.until(
        WAIT,
        () -> metric("tally_http_buffered_request_bytes") == 0,
        () -> "buffered bytes not released");
    stillServes();
  }

  /** Case 2: Content-Length beside Transfer-Encoding, with a second request hidden in the body. */
  @Test
  void contentLengthWithTransferEncodingIsRefusedAndTheConnectionClosed() throws Exception {
    String title = "smuggled-" + UUID.randomUUID();
    byte[] hidden = McpClient.call(7, CountingUpstream.IRREVERSIBLE, title).getBytes();
    String smuggled =
        "POST "
            + tally.mcp().getRawPath()
            + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + "Accept: application/json, text/event-stream\r\nContent-Length: "
            + hidden.length
            + "\r\n\r\n"
            + new String(hidden, StandardCharsets.US_ASCII);
    String body = "0\r\n\r\n" + smuggled;
    Socket s = open();
    send(
        s,
        head("POST", body.length(), "Content-Type: application/json", "Transfer-Encoding: chunked")
            + body);
    String answer = readUntilClosed(s);
    assertThat(answer).startsWith("HTTP/1.1 400");
    assertThat(answer).as("exactly one answer, then close").containsOnlyOnce("HTTP/1.1 ");
    for (String te : List.of("xchunked", "chunked, identity", "identity", "gzip, chunked")) {
      Socket t = open();
      send(t, head("POST", 2, "Content-Type: application/json", "Transfer-Encoding: " + te) + "{}");
      String a = readUntilClosed(t);
      assertThat(a).as(te).startsWith("HTTP/1.1 400").contains("Transfer-Encoding");
    }
    stillServes();
    assertThat(upstream.sideEffects(title)).as("the hidden request never ran").isZero();
  }

  /** A chunked request is answered, then its connection is closed rather than kept alive. */
  @Test
  void aChunkedRequestIsAnsweredAndItsConnectionClosed() throws Exception {
    String title = "chunked-" + UUID.randomUUID();
    byte[] call = McpClient.call(3, CountingUpstream.IRREVERSIBLE, title).getBytes();
    String chunk = Integer.toHexString(call.length) + "\r\n" + new String(call) + "\r\n0\r\n\r\n";
    Socket s = open();
    String h =
        "POST "
            + tally.mcp().getRawPath()
            + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + "Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\n"
            + "Transfer-Encoding: chunked\r\n\r\n";
    send(s, h + chunk);
    String answer = readUntilClosed(s);
    assertThat(answer).startsWith("HTTP/1.1 200").containsIgnoringCase("connection: close");
    assertThat(upstream.sideEffects(title)).isOne();
  }

  /** Case 4: a slowloris header, idle sockets past the cap, a body trickled forever. */
  @Test
  void slowAndIdleConnectionsAreClosedAndTheCapHolds() throws Exception {
    long capBefore = limitHits("max_connections");
    Socket loris = open();
    send(loris, "POST " + tally.mcp().getRawPath() + " HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    List<Socket> idle = new ArrayList<>();
    for (int i = 0; i < 80; i++) {
      idle.add(open());
    }
    Poll.until(
        WAIT,
        () -> limitHits("max_connections") > capBefore,
        () -> "the connection cap was never hit");
    long closed = 0;
    for (Socket s : idle) {
      if (closedWithin(s, WAIT)) {
        closed++;
      }
    }
    assertThat(closed).as("every idle connection is closed by the header timeout").isEqualTo(80);
    assertThat(closedWithin(loris, WAIT)).as("the slowloris connection").isTrue();
    assertThat(limitHits("header_timeout")).isPositive();
    stillServes();

    // A kept-alive connection left idle after its answer closes after sidecar.idleTimeout.
    Socket kept = open();
    send(kept, "GET /readyz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    Socket admin = new Socket();
    sockets.add(admin);
    admin.connect(new InetSocketAddress("127.0.0.1", tally.admin("/").getPort()), 10_000);
    send(admin, "GET /readyz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    assertThat(closedWithin(kept, WAIT)).isTrue();
    assertThat(closedWithin(admin, WAIT)).as("the admin port's idle connection").isTrue();
  }

  /** Case 5: overlong UTF-8 (C0 AF for '/') and its three-byte twin never reach the upstream. */
  @Test
  void overlongUtf8IsRefusedBeforeAnythingIsRecorded() throws Exception {
    for (byte[] overlong :
        List.of(
            new byte[] {(byte) 0xC0, (byte) 0xAF},
            new byte[] {(byte) 0xE0, (byte) 0x80, (byte) 0xAF})) {
      ByteArrayOutputStream body = new ByteArrayOutputStream();
      String prefix = "overlong-" + UUID.randomUUID() + "..";
      body.write(
          ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\""
                  + CountingUpstream.IRREVERSIBLE
                  + "\",\"arguments\":{\"title\":\""
                  + prefix)
              .getBytes(StandardCharsets.US_ASCII));
      body.write(overlong);
      body.write("etc\"}}}".getBytes(StandardCharsets.US_ASCII));
      String answer = post(body.toByteArray());
      assertThat(answer).startsWith("HTTP/1.1 400").contains("PARSE_ERROR").contains("UTF-8");
      assertThat(upstream.titles()).noneMatch(t -> t.startsWith(prefix));
    }
    stillServes();
  }

  /** Case 8: {@code _meta} held to the argument rules; a body just under the limit accepted. */
  @Test
  void metaValuesAreValidatedAndABodyJustUnderTheLimitIsAccepted() throws Exception {
    String title = "meta-" + UUID.randomUUID();
    String infinite =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\""
            + CountingUpstream.IRREVERSIBLE
            + "\",\"arguments\":{\"title\":\""
            + title
            + "\"},\"_meta\":{\"n\":1e400}}}";
    String a = post(infinite.getBytes(StandardCharsets.UTF_8));
    assertThat(a).startsWith("HTTP/1.1 400").contains("params._meta/n").doesNotContain("Infinity");
    String lone = infinite.replace("1e400", "\"\\ud800\"");
    String b = post(lone.getBytes(StandardCharsets.UTF_8));
    assertThat(b).startsWith("HTTP/1.1 400").contains("lone surrogate");
    assertThat(upstream.sideEffects(title)).isZero();

    String big = "big-" + UUID.randomUUID();
    String template = McpClient.call(2, CountingUpstream.IRREVERSIBLE, big + "PAD");
    int room = 4 * 1024 * 1024 - template.length() - 16;
    byte[] body = template.replace("PAD", "p".repeat(room)).getBytes(StandardCharsets.UTF_8);
    assertThat(body.length).isLessThan(4 * 1024 * 1024);
    String c = post(body);
    assertThat(c).startsWith("HTTP/1.1 200").doesNotContain("canonical form longer");
    assertThat(upstream.sideEffects(big + "p".repeat(room))).isOne();
    stillServes();
  }

  /**
   * Case 3, a JSON answer: a client that sends a call and never reads its answer (8 MiB, more than
   * the loopback socket buffers take) holds its connection and the queued answer no longer than two
   * {@code sidecar.idleTimeout}s: Vert.x's own close waited behind the unsent bytes for ever. The
   * answer is stored and recorded not delivered, and the identical retry gets it replayed: the tool
   * ran once.
   */
  @Test
  void aJsonAnswerTheClientNeverReadsEndsWithItsConnectionAndIsReplayedToTheRetry()
      throws Exception {
    String title = "unread-" + UUID.randomUUID();
    long undeliveredBefore = executions("state=completed_not_delivered").size();
    long stalledBefore = limitHits("stalled_client");
    upstream.padResults(8 << 20);
    try {
      URI mcp = tally.mcp();
      Socket s = new Socket();
      sockets.add(s);
      s.setReceiveBufferSize(4096); // before connect: the window it advertises stays small
      s.connect(new InetSocketAddress(mcp.getHost(), mcp.getPort()), 10_000);
      byte[] body =
          McpClient.call(1, CountingUpstream.IRREVERSIBLE, title).getBytes(StandardCharsets.UTF_8);
      send(
          s,
          head(
              "POST",
              body.length,
              "Content-Type: application/json",
              "Authorization: Bearer " + McpClient.TOKEN)); // the agent's credential: its retry
      s.getOutputStream().write(body);
      s.getOutputStream().flush();
      upstream.answered(title).get(WAIT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
      // Nothing is read from s: the sidecar must give up on it and keep the answer.
      Poll.until(
          WAIT,
          () -> executions("state=completed_not_delivered").size() == undeliveredBefore + 1,
          () -> "never recorded not delivered: " + executions("limit=5"));
      assertThat(closedWithin(s, WAIT)).as("the unread connection is closed").isTrue();
      assertThat(limitHits("stalled_client")).isEqualTo(stalledBefore + 1);
    } finally {
      upstream.padResults(0);
    }
    McpClient.Answer retry =
        agent.call(tally.mcp(), 2, CountingUpstream.IRREVERSIBLE, title, null, WAIT);
    assertThat(retry.isToolResult()).as(retry.body()).isTrue();
    assertThat(upstream.sideEffects(title))
        .as("the tool ran once: %s", executions("limit=3"))
        .isOne();
    assertThat(retry.replay().path("state").asText())
        .as("replay marker %s, meta %s", retry.replay(), retry.result().path("_meta"))
        .isEqualTo("completed_not_delivered");
    assertThat(retry.result().path("structuredContent").path("padding").asText()).hasSize(8 << 20);
    assertThat(upstream.sideEffects(title)).isOne();
    assertThat(executions("state=completed_not_delivered")).hasSize((int) undeliveredBefore);
    stillServes();
  }

  /**
   * Case 3, an SSE answer: the upstream streams about 13 MiB of progress events and then the result
   * to a client that never reads. The sidecar keeps reading the upstream (the result is captured),
   * resets the client's connection once more than {@code sidecar.maxUndeliveredBytes} queued for
   * it, records the answer not delivered, and the identical retry gets the result replayed.
   */
  @Test
  void anSseAnswerTheClientNeverReadsIsCutAtItsBacklogAndReplayedToTheRetry() throws Exception {
    String title = "unread-sse-" + UUID.randomUUID();
    long undeliveredBefore = executions("state=completed_not_delivered").size();
    long cutBefore = limitHits("max_undelivered_bytes");
    upstream.streamProgress(200);
    try {
      URI mcp = tally.mcp();
      Socket s = new Socket();
      sockets.add(s);
      s.setReceiveBufferSize(4096);
      s.connect(new InetSocketAddress(mcp.getHost(), mcp.getPort()), 10_000);
      byte[] body =
          McpClient.call(1, CountingUpstream.IRREVERSIBLE, title).getBytes(StandardCharsets.UTF_8);
      send(
          s,
          head(
              "POST",
              body.length,
              "Content-Type: application/json",
              "Authorization: Bearer " + McpClient.TOKEN));
      s.getOutputStream().write(body);
      s.getOutputStream().flush();
      Poll.until(
          WAIT,
          () -> executions("state=completed_not_delivered").size() == undeliveredBefore + 1,
          () -> "never recorded not delivered: " + executions("limit=5"));
      assertThat(limitHits("max_undelivered_bytes")).isEqualTo(cutBefore + 1);
      assertThat(closedWithin(s, WAIT)).as("the unread connection is reset").isTrue();
    } finally {
      upstream.streamProgress(0);
    }
    McpClient.Answer retry =
        agent.call(tally.mcp(), 2, CountingUpstream.IRREVERSIBLE, title, null, WAIT);
    assertThat(retry.isToolResult()).as(retry.body()).isTrue();
    assertThat(upstream.sideEffects(title)).as("the tool ran once").isOne();
    assertThat(retry.replay().path("state").asText()).isEqualTo("completed_not_delivered");
    assertThat(tally.output()).doesNotContain("OutOfMemoryError");
    stillServes();
  }

  /** Case 7: HTTP/2 cleartext is off by default; the prior-knowledge preface is not spoken. */
  @Test
  void http2CleartextIsOffByDefault() throws Exception {
    Socket s = open();
    s.getOutputStream()
        .write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    s.getOutputStream().flush();
    String answer = readUntilClosed(s);
    assertThat(answer).doesNotContain("\u0000\u0000"); // no SETTINGS frame
    stillServes();
  }

  /** Case 7: with sidecar.h2c on, an oversized HTTP/2 body gets 413 and only its stream ends. */
  @Test
  void withH2cOnAnOversizedBodyGets413AndTheConnectionServesOn() throws Exception {
    Path config = dir.resolve("h2c.yaml");
    Files.writeString(
        config,
        "upstream:\n  url: "
            + upstream.url()
            + "\nstore: memory\nsidecar:\n  h2c: true\nlimits:\n  maxRequestBytes: 64KiB\n");
    io.vertx.core.Vertx vertx = io.vertx.core.Vertx.vertx();
    try (TallyProcess h2 =
        TallyProcess.serve(dir.resolve("h2c"), config, TallyProcess.SMALL_JVM, Map.of())
            .awaitListening(START)) {
      io.vertx.core.http.HttpClient client =
          vertx.createHttpClient(
              new io.vertx.core.http.HttpClientOptions()
                  .setProtocolVersion(io.vertx.core.http.HttpVersion.HTTP_2)
                  .setHttp2ClearTextUpgrade(false)
                  .setDefaultHost("127.0.0.1")
                  .setDefaultPort(h2.mcp().getPort()),
              new io.vertx.core.http.PoolOptions().setHttp2MaxSize(1));
      String big = McpClient.call(1, CountingUpstream.IRREVERSIBLE, "x".repeat(200_000));
      String[] tooLarge = h2post(client, h2.mcp().getRawPath(), big);
      assertThat(tooLarge[0]).isEqualTo("413");
      assertThat(tooLarge[1]).contains("PAYLOAD_TOO_LARGE").contains("limits.maxRequestBytes");
      String title = "h2-" + UUID.randomUUID();
      String[] ok =
          h2post(
              client,
              h2.mcp().getRawPath(),
              McpClient.call(2, CountingUpstream.IRREVERSIBLE, title));
      assertThat(ok[0]).as(ok[1]).isEqualTo("200");
      assertThat(upstream.sideEffects(title)).isOne();
      assertThat(ok[2]).as("the same HTTP/2 connection").isEqualTo(tooLarge[2]);
    } finally {
      vertx
          .close()
          .toCompletionStage()
          .toCompletableFuture()
          .get(30, java.util.concurrent.TimeUnit.SECONDS);
    }
  }

  /** Status, body and the connection's identity of one HTTP/2 POST. */
  private static String[] h2post(io.vertx.core.http.HttpClient client, String path, String body)
      throws Exception {
    return client
        .request(io.vertx.core.http.HttpMethod.POST, path)
        .compose(
            req -> {
              req.putHeader("Content-Type", "application/json")
                  .putHeader("Accept", "application/json, text/event-stream")
                  .putHeader("MCP-Protocol-Version", "2025-11-25");
              String conn = Integer.toHexString(System.identityHashCode(req.connection()));
              return req.send(body)
                  .compose(
                      r ->
                          r.body()
                              .map(
                                  b ->
                                      new String[] {
                                        Integer.toString(r.statusCode()), b.toString(), conn
                                      }));
            })
        .toCompletionStage()
        .toCompletableFuture()
        .get(WAIT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
  }

  // ---- helpers --------------------------------------------------------------------------------

  /** {@code /readyz} answers 200 and a real call is performed once. */
  private static void stillServes() throws Exception {
    Poll.until(
        WAIT,
        () -> {
          try {
            return agent.get(tally.admin("/readyz")).status() == 200;
          } catch (Exception e) {
            return false;
          }
        },
        () -> "/readyz never answered 200 " + tally.output());
    String title = "real-" + UUID.randomUUID();
    McpClient.Answer a =
        agent.call(tally.mcp(), 1, CountingUpstream.IRREVERSIBLE, title, null, WAIT);
    assertThat(a.isToolResult()).as(a.body()).isTrue();
    assertThat(upstream.sideEffects(title)).isOne();
    assertThat(tally.isAlive()).isTrue();
    assertThat(tally.output()).doesNotContain("OutOfMemoryError");
  }

  /** The value of the series {@code name} on /metrics, -1 when absent. */
  private static long metric(String name) {
    return metric(name, Map.of());
  }

  /**
   * The value of the series {@code name} whose labels include {@code labels} (Prometheus text from
   * the OpenTelemetry exporter: labels in any order, values written as doubles), -1 when absent.
   */
  private static long metric(String name, Map<String, String> labels) {
    try {
      String text = agent.get(tally.admin("/metrics")).body();
      Matcher m =
          Pattern.compile("(?m)^" + Pattern.quote(name) + "(\\{([^}]*)\\})? (\\S+)$").matcher(text);
      while (m.find()) {
        String got = m.group(2) == null ? "" : m.group(2);
        boolean all =
            labels.entrySet().stream()
                .allMatch(e -> got.contains(e.getKey() + "=\"" + e.getValue() + "\""));
        if (all) {
          return (long) Double.parseDouble(m.group(3));
        }
      }
      return -1;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** The admin API's executions matching {@code query} (first page). */
  private static List<JsonNode> executions(String query) {
    return agent.executions(tally.admin("/v1/executions?" + query));
  }

  private static long limitHits(String limit) {
    return metric("tally_client_limit_hits_total", Map.of("port", "mcp", "limit", limit));
  }

  private Socket open() throws IOException {
    URI mcp = tally.mcp();
    Socket s = new Socket();
    sockets.add(s);
    s.setSoTimeout((int) WAIT.toMillis());
    s.connect(new InetSocketAddress(mcp.getHost(), mcp.getPort()), 10_000);
    return s;
  }

  private static String head(String method, long contentLength, String... headers) {
    StringBuilder h = new StringBuilder();
    h.append(method).append(' ').append(tally.mcp().getRawPath()).append(" HTTP/1.1\r\n");
    h.append("Host: 127.0.0.1\r\nAccept: application/json, text/event-stream\r\n");
    h.append("MCP-Protocol-Version: 2025-11-25\r\n");
    for (String x : headers) {
      h.append(x).append("\r\n");
    }
    h.append("Content-Length: ").append(contentLength).append("\r\n\r\n");
    return h.toString();
  }

  private static void send(Socket s, String text) throws IOException {
    OutputStream out = s.getOutputStream();
    out.write(text.getBytes(StandardCharsets.UTF_8));
    out.flush();
  }

  /** One POST of {@code body} on its own connection; the whole answer. */
  private String post(byte[] body) throws IOException {
    Socket s = open();
    OutputStream out = s.getOutputStream();
    out.write(
        head("POST", body.length, "Content-Type: application/json", "Connection: close")
            .getBytes(StandardCharsets.US_ASCII));
    out.write(body);
    out.flush();
    return readUntilClosed(s);
  }

  private static String readUntilClosed(Socket s) throws IOException {
    try {
      return new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    } catch (SocketException e) {
      return "";
    }
  }

  private static String readSome(Socket s) throws IOException {
    InputStream in = s.getInputStream();
    byte[] b = new byte[8192];
    try {
      int n = in.read(b);
      return n <= 0 ? "" : new String(b, 0, n, StandardCharsets.UTF_8);
    } catch (SocketTimeoutException | SocketException e) {
      return "";
    }
  }

  /** Whether the server closed {@code s} (EOF or reset) within {@code max}. */
  private static boolean closedWithin(Socket s, Duration max) throws IOException {
    s.setSoTimeout((int) max.toMillis());
    InputStream in = s.getInputStream();
    byte[] b = new byte[8192];
    try {
      while (in.read(b) >= 0) {
        // an answer first, then EOF
      }
      return true;
    } catch (SocketTimeoutException e) {
      return false;
    } catch (SocketException e) {
      return true;
    }
  }
}
