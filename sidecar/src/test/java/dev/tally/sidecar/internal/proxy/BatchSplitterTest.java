package dev.tally.sidecar.internal.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.core.gate.TallyError;
import dev.tally.sidecar.internal.rpc.JsonRpc;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class BatchSplitterTest {
  private final BatchSplitter splitter = BatchSplitter.create(JsonRpc.create(16), 4);

  private BatchSplit split(String body) {
    return splitter.split(body.getBytes(StandardCharsets.UTF_8));
  }

  private static String slice(String body, BatchElement e) {
    byte[] b = body.getBytes(StandardCharsets.UTF_8);
    return new String(b, e.offset(), e.length(), StandardCharsets.UTF_8);
  }

  @Test
  void classifiesEachElementAndKeepsItsExactBytes() {
    String body =
        " [ {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"a\"}},"
            + "{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":\"tools/list\"} ,"
            + "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}},"
            + "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}]";
    BatchSplit s = split(body);
    assertThat(s.refused()).isFalse();
    List<BatchElement> e = s.elements();
    assertThat(e)
        .extracting(BatchElement::kind)
        .containsExactly(
            BatchElement.Kind.TOOLS_CALL,
            BatchElement.Kind.REQUEST,
            BatchElement.Kind.NOTIFICATION,
            BatchElement.Kind.RESPONSE);
    assertThat(e.get(0).id().intValue()).isEqualTo(1);
    assertThat(e.get(1).id().textValue()).isEqualTo("x");
    assertThat(e.get(1).method()).isEqualTo("tools/list");
    assertThat(slice(body, e.get(1)))
        .isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":\"tools/list\"}");
    assertThat(slice(body, e.get(3))).isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}");
  }

  @Test
  void badElementsGetTheirOwnErrorWhileTheRestProceed() {
    BatchSplit s =
        split(
            "[1,\"s\",[],{\"jsonrpc\":\"1.0\",\"id\":5,\"method\":\"ping\"},"
                + "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"ping\"}]");
    // Five elements exceed the limit of four: the whole batch is refused.
    assertThat(s.refused()).isTrue();
    assertThat(s.error()).contains("sidecar.maxBatchSize (4)");
    s =
        split(
            "[1,[],{\"jsonrpc\":\"1.0\",\"id\":5,\"method\":\"ping\"},"
                + "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"ping\"}]");
    List<BatchElement> e = s.elements();
    assertThat(e)
        .extracting(BatchElement::kind)
        .containsExactly(
            BatchElement.Kind.INVALID,
            BatchElement.Kind.INVALID,
            BatchElement.Kind.INVALID,
            BatchElement.Kind.REQUEST);
    assertThat(e.get(0).error()).isEqualTo("batch element 0 is not a JSON-RPC object");
    assertThat(e.get(2).error()).contains("/jsonrpc must be \"2.0\"");
    assertThat(e.get(2).id().intValue()).isEqualTo(5);
  }

  @Test
  void duplicateMethodIsRefusedForThatElementWithItsId() {
    BatchSplit s =
        split(
            "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"method\":\"tools/call\","
                + "\"params\":{\"name\":\"a\"}},{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}]");
    BatchElement e = s.elements().get(0);
    assertThat(e.kind()).isEqualTo(BatchElement.Kind.INVALID);
    assertThat(e.error()).contains("duplicate member \"method\"");
    assertThat(e.id().intValue()).isEqualTo(1);
    assertThat(s.elements().get(1).kind()).isEqualTo(BatchElement.Kind.REQUEST);
  }

  @Test
  void initializeIsRefusedInsideABatch() {
    BatchElement e =
        split("[{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{}}]")
            .elements()
            .get(0);
    assertThat(e.kind()).isEqualTo(BatchElement.Kind.INVALID);
    assertThat(e.error()).contains("must not be part of a batch");
    assertThat(e.id().intValue()).isZero();
  }

  @Test
  void nestedDuplicateKeyIsRefusedForThatElement() {
    BatchSplit s =
        split(
            "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
                + "\"params\":{\"name\":\"a\",\"name\":\"b\"}}]");
    BatchElement e = s.elements().get(0);
    assertThat(e.kind()).isEqualTo(BatchElement.Kind.INVALID);
    assertThat(e.error()).contains("duplicate object key");
  }

  @Test
  void duplicateIdsRefuseTheWholeBatch() {
    BatchSplit s =
        split(
            "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"},"
                + "{\"jsonrpc\":\"2.0\",\"id\":1.0e0,\"method\":\"ping\"},"
                + "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"a\"}}]");
    assertThat(s.refused()).isTrue();
    assertThat(s.code()).isEqualTo(TallyError.Code.INVALID_REQUEST);
    assertThat(s.error()).contains("elements 0 and 2").contains("share one JSON-RPC id");
    // A string id "1" is not the number 1, and a client response may reuse a request's id.
    BatchSplit ok =
        split(
            "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"},"
                + "{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"method\":\"ping\"},"
                + "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}]");
    assertThat(ok.refused()).isFalse();
  }

  @Test
  void emptyMalformedDeepAndTrailingBatchesAreRefused() {
    assertThat(split("[]").error()).contains("empty batch");
    assertThat(split(" [ ] ").code()).isEqualTo(TallyError.Code.INVALID_REQUEST);
    assertThat(split("[{\"a\":").code()).isEqualTo(TallyError.Code.PARSE_ERROR);
    assertThat(split("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}").code())
        .isEqualTo(TallyError.Code.PARSE_ERROR);
    assertThat(split("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}] {}").error())
        .contains("trailing content");
    assertThat(split("[{\"jsonrpc\":\"2.0\"} x]").error()).isEqualTo("malformed JSON near byte 19");
    String deep = "[" + "[".repeat(20) + "]".repeat(20) + "]";
    BatchSplit d = split(deep);
    assertThat(d.code()).isEqualTo(TallyError.Code.INVALID_REQUEST);
    assertThat(d.error()).contains("16 levels");
  }

  @Test
  void errorsNeverEchoValues() {
    BatchSplit s =
        split(
            "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":{\"secret\":\"hunter2\"}},"
                + "{\"jsonrpc\":\"2.0\",\"id\":{\"k\":\"hunter2\"},\"method\":\"ping\"}]");
    assertThat(s.elements())
        .allSatisfy(e -> assertThat(e.error()).isNotNull().doesNotContain("hunter2"));
    assertThat(s.elements().get(0).error()).contains("/method must be a string");
    assertThat(s.elements().get(1).error()).contains("/id must be a string or an integer");
  }

  @Test
  void detectsBatchesByTheirFirstNonBlankByte() {
    byte[] b = " \r\n\t[1]".getBytes(StandardCharsets.UTF_8);
    assertThat(BatchFlow.isBatch(b, 0, b.length)).isTrue();
    assertThat(BatchFlow.isBatch(b, 5, 2)).isFalse();
    byte[] o = " {\"a\":[1]}".getBytes(StandardCharsets.UTF_8);
    assertThat(BatchFlow.isBatch(o, 0, o.length)).isFalse();
    assertThat(BatchFlow.isBatch(new byte[0], 0, 0)).isFalse();
  }
}
