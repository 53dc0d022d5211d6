package dev.tally.sidecar.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.sidecar.testing.RawHttp;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Bad requests get the documented status and a JSON-RPC error; nothing reaches the upstream. */
class SidecarBadInputIT {
  private SidecarHarness h;
  private RawMcp raw;
  private int postsBefore;

  @BeforeEach
  void start() throws Exception {
    h = SidecarHarness.fake(b -> b.maxRequestBytes(2048).maxJsonDepth(16));
    raw = new RawMcp(h.url).initialize();
    postsBefore = h.upstream.posts.get();
  }

  @AfterEach
  void stop() throws Exception {
    h.close();
  }

  private void assertRefused(HttpResponse<String> r, int status, int rpcCode, String code) {
    assertThat(r.statusCode()).isEqualTo(status);
    assertThat(r.headers().firstValue("Content-Type")).hasValue("application/json");
    assertThat(r.body()).contains("\"code\":" + rpcCode).contains("\"" + code + "\"");
    assertThat(h.upstream.posts.get()).isEqualTo(postsBefore);
    assertThat(h.upstream.sideEffects).hasValue(0);
  }

  @Test
  void malformedJsonIsAParseError() throws Exception {
    assertRefused(
        raw.post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{"),
        400,
        -32700,
        "PARSE_ERROR");
    assertRefused(raw.post("{nope"), 400, -32700, "PARSE_ERROR");
  }

  @Test
  void wrongContentTypeIs415() throws Exception {
    HttpResponse<String> r =
        raw.http.send(
            raw.request(RawMcp.call(1, "create_ticket", "{}"))
                .setHeader("Content-Type", "text/plain")
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertRefused(r, 415, -32600, "UNSUPPORTED_MEDIA_TYPE");
  }

  @Test
  void missingAcceptTypeIs406() throws Exception {
    HttpResponse<String> r =
        raw.http.send(
            raw.request(RawMcp.call(1, "create_ticket", "{}"))
                .setHeader("Accept", "application/json")
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertRefused(r, 406, -32600, "NOT_ACCEPTABLE");
  }

  @Test
  void oversizedBodyIs413() throws Exception {
    String big = RawMcp.call(1, "create_ticket", "{\"title\":\"" + "x".repeat(4000) + "\"}");
    HttpResponse<String> r = raw.post(big);
    assertRefused(r, 413, -32600, "PAYLOAD_TOO_LARGE");
    assertThat(r.body()).contains("limits.maxRequestBytes (2048 bytes)");
  }

  /**
   * A client still sending a body the sidecar refused (413 as soon as Content-Length exceeds the
   * limit) must get the answer, not a reset: the sidecar reads on and drops the rest before it
   * closes. Closing with unread bytes makes the kernel answer with a reset, which can destroy the
   * 413 before the client reads it (the Java client then reports "header parser received no bytes";
   * seen in CI) and fails the client's further writes.
   */
  @Test
  void aRefusedBodyStillBeingSentIsReadToItsEndBeforeTheConnectionCloses() throws Exception {
    URI u = URI.create(h.url);
    int total = 4 << 20;
    String answer = RawHttp.answerWhileSending(u, postHead(u, "Content-Length: " + total), total);
    assertThat(answer).startsWith("HTTP/1.1 413").contains("PAYLOAD_TOO_LARGE");
    assertThat(answer.toLowerCase(Locale.ROOT)).contains("connection: close");
    assertThat(h.upstream.posts.get()).isEqualTo(postsBefore);
    assertThat(h.upstream.sideEffects).hasValue(0);
  }

  @Test
  void aChunkedBodyThatPassesTheLimitIsRefusedAndReadToItsEnd() throws Exception {
    URI u = URI.create(h.url);
    try (Socket s = new Socket(u.getHost(), u.getPort())) {
      s.setSoTimeout(10_000);
      OutputStream out = s.getOutputStream();
      InputStream in = s.getInputStream();
      writePostHead(s, u, "Transfer-Encoding: chunked");
      byte[] chunk = ("1000\r\n" + " ".repeat(0x1000) + "\r\n").getBytes(StandardCharsets.US_ASCII);
      out.write(chunk); // 4 KiB: over the 2 KiB limit, without a Content-Length to tell
      out.flush();

      String answer = RawHttp.readResponse(in);
      assertThat(answer).startsWith("HTTP/1.1 413").contains("limits.maxRequestBytes (2048 bytes)");

      Thread.sleep(200);
      for (int i = 0; i < 256; i++) {
        out.write(chunk);
      }
      out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      assertThat(in.read()).as("the sidecar closes once the refused body ended").isEqualTo(-1);
    }
    assertThat(h.upstream.posts.get()).isEqualTo(postsBefore);
    assertThat(h.upstream.sideEffects).hasValue(0);
  }

  @Test
  void aClientThatSendsAnEndlessRefusedBodyIsCutOffAfterTheDrainBound() throws Exception {
    URI u = URI.create(h.url);
    long declared = 1L << 30;
    long sent = 0;
    IOException cutOff = null;
    try (Socket s = new Socket(u.getHost(), u.getPort())) {
      s.setSoTimeout(10_000);
      OutputStream out = s.getOutputStream();
      writePostHead(s, u, "Content-Length: " + declared);
      byte[] chunk = new byte[256 * 1024];
      Arrays.fill(chunk, (byte) ' ');
      try {
        while (sent < declared) {
          out.write(chunk);
          sent += chunk.length;
        }
      } catch (IOException e) {
        cutOff = e;
      }
    }
    assertThat(cutOff).as("the sidecar stops reading a refused body after its bound").isNotNull();
    assertThat(sent)
        .isGreaterThanOrEqualTo(16L << 20) // Lingering.MAX_BYTES: dropped before the cut
        .isLessThan(declared / 4);
  }

  /** Writes the head of an MCP POST in the test's session, with {@code framing} for the body. */
  private void writePostHead(Socket s, URI u, String framing) throws IOException {
    s.getOutputStream().write(postHead(u, framing).getBytes(StandardCharsets.US_ASCII));
  }

  /** The head of an MCP POST in the test's session, with {@code framing} for the body. */
  private String postHead(URI u, String framing) {
    return "POST "
        + u.getPath()
        + " HTTP/1.1\r\nHost: "
        + u.getHost()
        + ":"
        + u.getPort()
        + "\r\nContent-Type: application/json\r\nAccept: application/json,"
        + " text/event-stream\r\nMcp-Session-Id: "
        + raw.session
        + "\r\nMCP-Protocol-Version: "
        + RawMcp.VERSION
        + "\r\n"
        + framing
        + "\r\n\r\n";
  }

  @Test
  void deepNestingIsRefusedNamingTheLimit() throws Exception {
    String deep = "{\"a\":".repeat(30) + "1" + "}".repeat(30);
    HttpResponse<String> r = raw.post(RawMcp.call(1, "create_ticket", deep));
    assertRefused(r, 400, -32600, "INVALID_REQUEST");
    assertThat(r.body()).contains("16 levels");
  }

  @Test
  void batchFromAVersionWithoutBatchingIsRefusedWithAClearMessage() throws Exception {
    HttpResponse<String> r =
        raw.post(
            "["
                + RawMcp.call(1, "create_ticket", "{}")
                + ",{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}]");
    assertRefused(r, 400, -32600, "INVALID_REQUEST");
    assertThat(r.body()).contains("from 2025-06-18 on").contains("send each message as its own");
  }

  @Test
  void foreignOriginIs403() throws Exception {
    HttpResponse<String> r =
        raw.http.send(
            raw.request(RawMcp.call(1, "create_ticket", "{}"))
                .header("Origin", "https://evil.example")
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertRefused(r, 403, -32600, "FORBIDDEN_ORIGIN");
  }

  @Test
  void modernHeaderBodyMismatchIs400HeaderMismatch() throws Exception {
    String body =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"create_ticket\","
            + "\"arguments\":{\"title\":\"x\"},\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}}}";
    HttpRequest.Builder base =
        HttpRequest.newBuilder(URI.create(h.url))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", "2026-07-28")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    // The method header claims a harmless method to slip past the gate.
    HttpResponse<String> sneaky =
        raw.http.send(
            base.copy()
                .header("Mcp-Method", "tools/list")
                .header("Mcp-Name", "create_ticket")
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertRefused(sneaky, 400, -32020, "HEADER_MISMATCH");
    HttpResponse<String> wrongName =
        raw.http.send(
            base.copy()
                .header("Mcp-Method", "tools/call")
                .header("Mcp-Name", "=?base64?Z2V0X3RpY2tldA==?=")
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertRefused(wrongName, 400, -32020, "HEADER_MISMATCH");
    assertThat(wrongName.body())
        .contains("Mcp-Name header does not match")
        .doesNotContain("get_ticket");
    assertThat(h.gate.admitted).hasValue(0);
  }

  @Test
  void wrongPathIs404AndNothingIsForwarded() throws Exception {
    HttpResponse<String> r =
        raw.http.send(
            HttpRequest.newBuilder(URI.create(h.url + "/other"))
                .POST(HttpRequest.BodyPublishers.ofString("{}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(404);
    assertThat(h.upstream.posts.get()).isEqualTo(postsBefore);
  }
}
