package dev.tally.core.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class BatchSplitterTest {
  private final BodyClassifier classifier = BodyClassifier.create(WireJson.create(16));
  private final BatchSplitter splitter = BatchSplitter.create(classifier, 4);

  /** As the adapters do it: the body is classified first, then split. */
  private BatchSplit split(String body) {
    byte[] b = body.getBytes(StandardCharsets.UTF_8);
    BodyScan scan = classifier.classify(b);
    if (scan.shape() == BodyScan.Shape.REFUSED) {
      return new BatchSplit(null, scan.problem());
    }
    assertThat(scan.shape()).isEqualTo(BodyScan.Shape.BATCH);
    return splitter.split(b);
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
    assertThat(e.get(0).scan().wellFormedCall()).isTrue();
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
    assertThat(s.error().message()).contains("sidecar.maxBatchSize (4)");
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
    assertThat(e.get(0).error().message()).isEqualTo("batch element 0: not a JSON-RPC object");
    assertThat(e.get(2).error().message()).isEqualTo("batch element 2: jsonrpc must be \"2.0\"");
    assertThat(e.get(2).id().intValue()).isEqualTo(5);
  }

  @Test
  void elementsFollowTheRulesOfASingleMessage() {
    BatchSplit s =
        split(
            "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"method\":\"tools/call\","
                + "\"params\":{\"name\":\"a\"}},{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"},"
                + "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\","
                + "\"params\":{\"name\":\"a\",\"name\":\"b\"}},"
                + "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{}}]");
    List<BatchElement> e = s.elements();
    assertThat(e.get(0).kind()).isEqualTo(BatchElement.Kind.INVALID);
    assertThat(e.get(0).error().message()).contains("duplicate member \"method\"");
    assertThat(e.get(1).kind()).isEqualTo(BatchElement.Kind.REQUEST);
    assertThat(e.get(2).error().message()).contains("duplicate member \"params.name\"");
    assertThat(e.get(3).kind()).isEqualTo(BatchElement.Kind.INVALID);
    assertThat(e.get(3).error().message()).contains("must not be part of a batch");
    assertThat(e.get(3).id().intValue()).isZero();
  }

  @Test
  void duplicateIdsRefuseTheWholeBatch() {
    BatchSplit s =
        split(
            "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"},"
                + "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"},"
                + "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"a\"}}]");
    assertThat(s.refused()).isTrue();
    assertThat(s.error().code()).isEqualTo(TallyError.Code.INVALID_REQUEST);
    assertThat(s.error().message()).contains("elements 0 and 2").contains("share one JSON-RPC id");
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
    assertThat(split("[]").error().message()).contains("empty batch");
    assertThat(split(" [ ] ").error().code()).isEqualTo(TallyError.Code.INVALID_REQUEST);
    assertThat(split("[{\"a\":").error().code()).isEqualTo(TallyError.Code.PARSE_ERROR);
    assertThat(split("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}").error().code())
        .isEqualTo(TallyError.Code.PARSE_ERROR);
    assertThat(split("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}] {}").error().message())
        .contains("trailing content");
    BatchSplit d = split("[" + "[".repeat(20) + "]".repeat(20) + "]");
    assertThat(d.error().code()).isEqualTo(TallyError.Code.INVALID_REQUEST);
    assertThat(d.error().message()).contains("16 levels");
  }

  @Test
  void errorsNeverEchoValues() {
    BatchSplit s =
        split(
            "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":{\"secret\":\"hunter2\"}},"
                + "{\"jsonrpc\":\"2.0\",\"id\":{\"k\":\"hunter2\"},\"method\":\"ping\"}]");
    assertThat(s.elements())
        .allSatisfy(e -> assertThat(e.error().message()).doesNotContain("hunter2"));
    assertThat(s.elements().get(0).error().message()).contains("method must be a string");
    assertThat(s.elements().get(1).error().message()).contains("id must be a string or an integer");
  }

  @Test
  void batchesAreRefusedFromProtocolVersion20250618On() {
    assertThat(BatchSplitter.refusalFor(null)).isNull();
    assertThat(BatchSplitter.refusalFor("2025-03-26")).isNull();
    assertThat(BatchSplitter.refusalFor("2025-06-18").code())
        .isEqualTo(TallyError.Code.INVALID_REQUEST);
    assertThat(BatchSplitter.refusalFor("2026-07-28")).isNotNull();
  }

  @Test
  void answersAreMergedInRequestOrderSkippingElementsWithoutOne() {
    byte[] merged =
        BatchMerger.merge(
            Arrays.asList(
                "{\"id\":2}".getBytes(StandardCharsets.UTF_8),
                null,
                "{\"id\":1}".getBytes(StandardCharsets.UTF_8)));
    assertThat(new String(merged, StandardCharsets.UTF_8)).isEqualTo("[{\"id\":2},{\"id\":1}]");
    assertThat(BatchMerger.merge(Arrays.asList(null, null))).isNull();
    assertThat(BatchMerger.merge(List.of())).isNull();
  }
}
