package dev.tally.core.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.core.mcp.BodyScan.Kind;
import dev.tally.core.mcp.BodyScan.Shape;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class BodyClassifierTest {
  private static final BodyClassifier C = BodyClassifier.create(WireJson.create(16));

  private static BodyScan scan(String s) {
    return C.classify(s.getBytes(StandardCharsets.UTF_8));
  }

  private static BodyScan scan(byte[] b) {
    return C.classify(b);
  }

  private static void refused(BodyScan s, TallyError.Code code, String fragment) {
    assertThat(s.shape()).isEqualTo(Shape.REFUSED);
    assertThat(s.problem().code()).isEqualTo(code);
    assertThat(s.problem().message()).startsWith("request body: ").contains(fragment);
  }

  private static String call(String params) {
    return "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{" + params + "}}";
  }

  @Test
  void findsMethodIdAndToolWhereverTheyAre() {
    BodyScan s =
        scan(
            "{\"params\":{\"arguments\":{\"name\":\"x\",\"method\":\"y\"},\"name\":\"read\"},"
                + "\"id\":7,\"jsonrpc\":\"2.0\",\"method\":\"tools/call\"}");
    assertThat(s.shape()).isEqualTo(Shape.MESSAGE);
    assertThat(s.kind()).isEqualTo(Kind.REQUEST);
    assertThat(s.method()).isEqualTo("tools/call");
    assertThat(s.id().asInt()).isEqualTo(7);
    assertThat(s.name()).isEqualTo("read");
    assertThat(s.isToolsCall()).isTrue();
    assertThat(s.wellFormedCall()).isTrue();
  }

  @Test
  void notificationsResponsesAndStringIds() {
    assertThat(scan("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}").kind())
        .isEqualTo(Kind.NOTIFICATION);
    BodyScan r = scan("{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"result\":{}}");
    assertThat(r.kind()).isEqualTo(Kind.RESPONSE);
    assertThat(r.id().asText()).isEqualTo("a");
    assertThat(scan("{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":1}}").kind())
        .isEqualTo(Kind.RESPONSE);
  }

  @Test
  void aByteOrderMarkIsRefusedAsAParseErrorWhateverFollows() {
    byte[] bom = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};
    for (String body : new String[] {"[" + call("\"name\":\"w\"") + "]", call("\"name\":\"w\"")}) {
      byte[] b = (new String(bom, StandardCharsets.UTF_8) + body).getBytes(StandardCharsets.UTF_8);
      refused(scan(b), TallyError.Code.PARSE_ERROR, "byte order mark");
    }
  }

  @Test
  void invalidUtf8IsRefusedNotDecoded() {
    // An overlong "/" (C0 AF) and an encoded surrogate would be decoded by a lenient parser.
    byte[] head =
        "{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"x\":\"..".getBytes(StandardCharsets.UTF_8);
    for (byte[] bad :
        new byte[][] {
          {(byte) 0xC0, (byte) 0xAF},
          {(byte) 0xE0, (byte) 0x80, (byte) 0xAF},
          {(byte) 0xED, (byte) 0xA0, (byte) 0x80},
          {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80}
        }) {
      byte[] b = new byte[head.length + bad.length + 2];
      System.arraycopy(head, 0, b, 0, head.length);
      System.arraycopy(bad, 0, b, head.length, bad.length);
      b[b.length - 2] = '"';
      b[b.length - 1] = '}';
      refused(scan(b), TallyError.Code.PARSE_ERROR, "invalid UTF-8 at byte " + head.length);
    }
  }

  @Test
  void malformedTruncatedTrailingAndEmptyBodiesAreParseErrors() {
    refused(scan(call("\"name\":\"w\",\"arguments\":{")), TallyError.Code.PARSE_ERROR, "malformed");
    refused(scan("not json"), TallyError.Code.PARSE_ERROR, "malformed");
    refused(
        scan("{\"jsonrpc\":\"2.0\",\"method\":\"ping\"} {}"),
        TallyError.Code.PARSE_ERROR,
        "trailing");
    refused(scan(""), TallyError.Code.PARSE_ERROR, "empty");
    refused(scan(" \r\n\t "), TallyError.Code.PARSE_ERROR, "empty");
  }

  @Test
  void batchesAreToldAfterWhitespaceAndScalarsAreInvalid() {
    assertThat(scan(" \n[" + call("\"name\":\"w\"") + "]").shape()).isEqualTo(Shape.BATCH);
    refused(scan("\"tools/call\""), TallyError.Code.INVALID_REQUEST, "not a JSON-RPC object");
    refused(scan("[1,2"), TallyError.Code.PARSE_ERROR, "malformed");
  }

  @Test
  void deepNestingIsAnInvalidRequestNamingTheLimit() {
    String deep =
        "{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"a\":" + "[".repeat(40) + "]".repeat(40) + "}";
    refused(scan(deep), TallyError.Code.INVALID_REQUEST, "16 levels");
    String hostile = "{\"a\":" + "[".repeat(100_000) + "]".repeat(100_000) + "}";
    refused(scan(hostile), TallyError.Code.INVALID_REQUEST, "levels");
  }

  @Test
  void duplicateMembersThatDecideRoutingAreRefusedWithoutEchoingValues() {
    refused(
        scan("{\"jsonrpc\":\"2.0\",\"method\":\"tools/list\",\"id\":1,\"method\":\"tools/call\"}"),
        TallyError.Code.INVALID_REQUEST,
        "duplicate member \"method\"");
    refused(
        scan(call("\"name\":\"read\",\"name\":\"write\"")),
        TallyError.Code.INVALID_REQUEST,
        "params.name");
    refused(
        scan(
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{},\"params\":{}}"),
        TallyError.Code.INVALID_REQUEST,
        "\"params\"");
    refused(
        scan("{\"jsonrpc\":\"2.0\",\"id\":1,\"id\":2,\"method\":\"ping\"}"),
        TallyError.Code.INVALID_REQUEST,
        "\"id\"");
    refused(
        scan(
            call(
                "\"name\":\"w\",\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"a\",\"io.modelcontextprotocol/protocolVersion\":\"b\"}")),
        TallyError.Code.INVALID_REQUEST,
        "protocolVersion");
    assertThat(scan(call("\"name\":\"read\",\"name\":\"write\"")).problem().message())
        .doesNotContain("read")
        .doesNotContain("write");
  }

  @Test
  void idsAreStringsOrIntegersNeverFractionsAndNotNullInRequests() {
    refused(
        scan("{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}"),
        TallyError.Code.INVALID_REQUEST,
        "id must be a string or an integer");
    refused(
        scan("{\"jsonrpc\":\"2.0\",\"id\":true,\"method\":\"ping\"}"),
        TallyError.Code.INVALID_REQUEST,
        "id must be");
    refused(
        scan("{\"jsonrpc\":\"2.0\",\"id\":[1],\"method\":\"ping\"}"),
        TallyError.Code.INVALID_REQUEST,
        "id must be");
    refused(
        scan("{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}"),
        TallyError.Code.INVALID_REQUEST,
        "must not be null");
    assertThat(
            scan("{\"jsonrpc\":\"2.0\",\"id\":12345678901234567890123,\"method\":\"ping\"}")
                .id()
                .bigIntegerValue())
        .hasToString("12345678901234567890123");
  }

  @Test
  void jsonrpcMustBe20AndMethodAString() {
    refused(scan("{\"id\":1,\"method\":\"ping\"}"), TallyError.Code.INVALID_REQUEST, "jsonrpc");
    refused(
        scan("{\"jsonrpc\":2,\"id\":1,\"method\":\"ping\"}"),
        TallyError.Code.INVALID_REQUEST,
        "jsonrpc");
    refused(
        scan("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":7}"),
        TallyError.Code.INVALID_REQUEST,
        "method must be a string");
    refused(
        scan("{\"jsonrpc\":\"2.0\",\"id\":1}"),
        TallyError.Code.INVALID_REQUEST,
        "neither a method");
    assertThat(scan("{\"id\":1,\"method\":\"ping\"}").id().asInt()).isEqualTo(1);
  }

  @Test
  void aToolsCallIsWellFormedOnlyWhenEveryEnvelopeCheckPasses() {
    assertThat(scan(call("\"name\":\"lookup\",\"arguments\":{},\"_meta\":null")).wellFormedCall())
        .isTrue();
    assertThat(scan(call("\"name\":\"\"")).wellFormedCall()).isFalse();
    assertThat(scan(call("\"name\":7")).wellFormedCall()).isFalse();
    assertThat(scan(call("\"arguments\":{}")).wellFormedCall()).isFalse();
    assertThat(scan(call("\"name\":\"l\",\"arguments\":[1]")).wellFormedCall()).isFalse();
    assertThat(scan(call("\"name\":\"l\",\"_meta\":1")).wellFormedCall()).isFalse();
    assertThat(
            scan("{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"params\":{\"name\":\"l\"}}")
                .wellFormedCall())
        .isFalse();
    assertThat(
            scan("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":[]}")
                .wellFormedCall())
        .isFalse();
    assertThat(
            scan("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"name\":\"l\"}}")
                .wellFormedCall())
        .isFalse();
  }

  @Test
  void readsTheMetaProtocolVersionAndTheResourceUri() {
    assertThat(
            scan(call(
                    "\"name\":\"l\",\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}"))
                .metaVersion())
        .isEqualTo("2026-07-28");
    assertThat(
            scan("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/read\",\"params\":{\"uri\":\"file:///a\",\"name\":\"n\"}}")
                .name())
        .isEqualTo("file:///a");
  }

  @Test
  void classifiesASliceOfAnArray() {
    byte[] b = "xx{\"jsonrpc\":\"2.0\",\"method\":\"ping\"}yy".getBytes(StandardCharsets.UTF_8);
    assertThat(C.classify(b, 2, b.length - 4).method()).isEqualTo("ping");
  }
}
