package dev.tally.sidecar.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
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
    assertThat(r.body()).contains("sidecar.maxRequestBytes (2048 bytes)");
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
