package dev.tally.sidecar.internal.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RequestScannerTest {
  private final RequestScanner scanner = RequestScanner.create(JsonRpc.create(16));

  private RequestScan scan(String s, boolean early) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    return scanner.scan(b, 0, b.length, early);
  }

  @Test
  void findsMethodAndIdWhereverTheyAre() {
    RequestScan r =
        scan(
            "{\"params\":{\"name\":\"x\",\"method\":\"nested\"},\"id\":7,\"jsonrpc\":\"2.0\",\"method\":\"tools/call\"}",
            false);
    assertThat(r.shape()).isEqualTo(RequestScan.Shape.MESSAGE);
    assertThat(r.method()).isEqualTo("tools/call");
    assertThat(r.id().asInt()).isEqualTo(7);
    assertThat(r.isToolsCall()).isTrue();
  }

  @Test
  void stringIdsAndNotificationsAreRead() {
    assertThat(scan("{\"id\":\"a\",\"method\":\"ping\"}", true).id().asText()).isEqualTo("a");
    RequestScan n = scan("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", true);
    assertThat(n.id()).isNull();
    assertThat(n.method()).isEqualTo("notifications/initialized");
  }

  @Test
  void earlyStopIgnoresTheRestOfTheBody() {
    RequestScan r = scan("{\"id\":1,\"method\":\"tools/list\",\"params\":{\"x\":", true);
    assertThat(r.shape()).isEqualTo(RequestScan.Shape.MESSAGE);
    assertThat(r.method()).isEqualTo("tools/list");
  }

  @Test
  void malformedJsonIsInvalidWithoutEcho() {
    RequestScan r = scan("{\"id\":1,\"method\":\"secret-value", false);
    assertThat(r.shape()).isEqualTo(RequestScan.Shape.INVALID);
    assertThat(r.error()).startsWith("malformed JSON").doesNotContain("secret");
    assertThat(scan("[1,2]", false).shape()).isEqualTo(RequestScan.Shape.INVALID);
    assertThat(scan("\"x\"", false).shape()).isEqualTo(RequestScan.Shape.INVALID);
    assertThat(scan("{} {}", false).shape()).isEqualTo(RequestScan.Shape.INVALID);
    assertThat(scan("", false).shape()).isEqualTo(RequestScan.Shape.INVALID);
  }

  @Test
  void deepNestingIsReportedWithTheLimit() {
    String deep = "{\"a\":".repeat(40) + "1" + "}".repeat(40);
    RequestScan r = scan("{\"params\":" + deep + ",\"method\":\"x\"}", false);
    assertThat(r.tooDeep()).isTrue();
    assertThat(r.error()).contains("16");
  }

  @Test
  void batchesReportWhetherTheyHoldAToolCall() {
    RequestScan b =
        scan("[{\"id\":1,\"method\":\"ping\"},{\"id\":2,\"method\":\"tools/call\"}]", false);
    assertThat(b.shape()).isEqualTo(RequestScan.Shape.BATCH);
    assertThat(b.toolsCallInBatch()).isTrue();
    RequestScan c = scan("[{\"id\":1,\"method\":\"ping\"}]", false);
    assertThat(c.toolsCallInBatch()).isFalse();
    assertThat(scan("[]", false).shape()).isEqualTo(RequestScan.Shape.INVALID);
  }

  @Test
  void aDuplicateMethodIsRefusedSoNoToolsCallHidesBehindAnotherMethod() {
    RequestScan r =
        scan(
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{},\"method\":\"tools/call\"}",
            false);
    assertThat(r.shape()).isNotEqualTo(RequestScan.Shape.MESSAGE);
    assertThat(r.isToolsCall()).isFalse();
  }

  @Test
  void aWellFormedToolsCallYieldsItsToolAndMetaProtocolVersion() {
    RequestScan r =
        scan(
            "{\"params\":{\"arguments\":{\"name\":\"inner\"},\"name\":\"lookup\","
                + "\"_meta\":{\"x\":{\"y\":1},\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}},"
                + "\"id\":\"a\",\"jsonrpc\":\"2.0\",\"method\":\"tools/call\"}",
            false);
    assertThat(r.call()).isEqualTo(new RequestScan.Call("lookup", "2026-07-28"));
    RequestScan plain =
        scan(
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
                + "\"params\":{\"name\":\"lookup\",\"arguments\":null,\"_meta\":null}}",
            false);
    assertThat(plain.call()).isEqualTo(new RequestScan.Call("lookup", null));
  }

  @Test
  void aToolsCallFailingAnyEnvelopeCheckOfToolCallBodyYieldsNoCall() {
    String ok = "\"params\":{\"name\":\"lookup\",\"arguments\":{}}";
    assertThat(call("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\"," + ok + "}"))
        .isNotNull();
    // Each of these is refused by ToolCallBody.parse, so it must take the full path.
    assertThat(call("{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\"," + ok + "}")).isNull();
    assertThat(call("{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"tools/call\"," + ok + "}"))
        .isNull();
    assertThat(call("{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"tools/call\"," + ok + "}"))
        .isNull();
    assertThat(call("{\"jsonrpc\":\"2.0\",\"id\":[1],\"method\":\"tools/call\"," + ok + "}"))
        .isNull();
    assertThat(call("{\"id\":1,\"method\":\"tools/call\"," + ok + "}")).isNull();
    assertThat(call("{\"jsonrpc\":2,\"id\":1,\"method\":\"tools/call\"," + ok + "}")).isNull();
    assertThat(call("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":[]}"))
        .isNull();
    assertThat(call(envelope("\"name\":\"\""))).isNull();
    assertThat(call(envelope("\"name\":7"))).isNull();
    assertThat(call(envelope("\"arguments\":{}"))).isNull();
    assertThat(call(envelope("\"name\":\"lookup\",\"arguments\":[1]"))).isNull();
    assertThat(call(envelope("\"name\":\"lookup\",\"arguments\":\"x\""))).isNull();
    assertThat(call(envelope("\"name\":\"lookup\",\"_meta\":1"))).isNull();
    assertThat(call("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"," + ok + "}"))
        .isNull();
  }

  private static String envelope(String params) {
    return "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{" + params + "}}";
  }

  private RequestScan.Call call(String body) {
    RequestScan r = scan(body, false);
    assertThat(r.shape()).isEqualTo(RequestScan.Shape.MESSAGE);
    return r.call();
  }

  @Test
  void everyScanThatToolCallBodyAcceptsAgreesOnTheTool() {
    JsonRpc json = JsonRpc.create(16);
    for (String body :
        new String[] {
          "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"a b\"}}",
          "{\"method\":\"tools/call\",\"params\":{\"_meta\":{},\"name\":\"\\u00e9\"},\"id\":\"x\",\"jsonrpc\":\"2.0\"}",
        }) {
      byte[] b = body.getBytes(StandardCharsets.UTF_8);
      ToolCallBody full = ToolCallBody.parse(json, b, 0, b.length);
      assertThat(full.error()).isNull();
      assertThat(call(body).tool()).isEqualTo(full.tool());
    }
  }
}
