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
}
