package dev.tally.core.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.core.mcp.JsonRpcScan.Kind;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class JsonRpcScanTest {
  private static JsonRpcScan scan(String s) {
    return JsonRpcScan.scan(s.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void findsTheMethodWhereverItIs() {
    JsonRpcScan s =
        scan("{\"params\":{\"method\":\"nested\",\"a\":[{}]},\"id\":1,\"method\":\"tools/call\"}");
    assertThat(s.kind()).isEqualTo(Kind.REQUEST);
    assertThat(s.method()).isEqualTo("tools/call");
    assertThat(s.isToolsCall()).isTrue();
  }

  @Test
  void findsTheToolNameAndRefusesDuplicatesThatCouldHideIt() {
    assertThat(
            scan("{\"method\":\"tools/call\",\"params\":{\"arguments\":{\"name\":\"x\"},\"name\":\"read\"}}")
                .name())
        .isEqualTo("read");
    assertThat(
            scan("{\"method\":\"tools/call\",\"params\":{\"name\":\"read\",\"name\":\"write\"}}")
                .kind())
        .isEqualTo(Kind.MALFORMED);
    assertThat(
            scan("{\"method\":\"tools/call\",\"params\":{\"name\":\"read\"},\"params\":{}}").kind())
        .isEqualTo(Kind.MALFORMED);
    assertThat(scan("{\"method\":\"tools/call\",\"params\":{\"name\":7}}").name()).isNull();
  }

  @Test
  void objectWithoutMethodIsAResponse() {
    assertThat(scan("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}").kind())
        .isEqualTo(Kind.RESPONSE);
  }

  @Test
  void duplicateTopLevelMethodIsMalformed() {
    JsonRpcScan s = scan("{\"method\":\"tools/list\",\"id\":1,\"method\":\"tools/call\"}");
    assertThat(s.kind()).isEqualTo(Kind.MALFORMED);
    assertThat(s.problem()).contains("duplicate").doesNotContain("tools/call");
  }

  @Test
  void truncatedGarbageAndTrailingDataAreMalformed() {
    assertThat(scan("{\"method\":\"tools/call\",\"params\":{").kind()).isEqualTo(Kind.MALFORMED);
    assertThat(scan("not json").kind()).isEqualTo(Kind.MALFORMED);
    assertThat(scan("{\"method\":\"ping\"} {}").kind()).isEqualTo(Kind.MALFORMED);
    assertThat(scan("").kind()).isEqualTo(Kind.MALFORMED);
  }

  @Test
  void batchesAndNonObjectsAreTold() {
    assertThat(scan("[{\"method\":\"tools/call\"}]").kind()).isEqualTo(Kind.BATCH);
    assertThat(scan("\"tools/call\"").kind()).isEqualTo(Kind.INVALID);
    assertThat(scan("{\"method\":7}").kind()).isEqualTo(Kind.INVALID);
  }

  @Test
  void scansASliceOfAnArray() {
    byte[] b = "xx{\"method\":\"ping\"}yy".getBytes(StandardCharsets.UTF_8);
    assertThat(JsonRpcScan.scan(b, 2, b.length - 4).method()).isEqualTo("ping");
  }

  @Test
  void hostileNestingIsMalformedNotAStackOverflow() {
    String deep = "{\"a\":" + "[".repeat(100_000) + "]".repeat(100_000) + "}";
    assertThat(scan(deep).kind()).isEqualTo(Kind.MALFORMED);
  }
}
