package dev.tally.core.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ToolCallReaderTest {
  private static final ToolCallReader R = ToolCallReader.create(WireJson.create(32));
  private static final ObjectMapper JSON = new ObjectMapper();

  private static ToolCallReader.Read read(String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    return R.read(b, 0, b.length);
  }

  private static ToolCallEnvelope ok(String s) {
    ToolCallReader.Read r = read(s);
    assertThat(r).isInstanceOf(ToolCallReader.Ok.class);
    return ((ToolCallReader.Ok) r).envelope();
  }

  private static TallyError refused(String s) {
    ToolCallReader.Read r = read(s);
    assertThat(r).isInstanceOf(ToolCallReader.Refused.class);
    return ((ToolCallReader.Refused) r).error();
  }

  private static String call(String params) {
    return "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{" + params + "}}";
  }

  private static String upstream(String s) {
    return new String(ok(s).withExecutionId("act_01TEST"), StandardCharsets.UTF_8);
  }

  @Test
  void readsToolArgumentsMetaAndContinuation() {
    ToolCallEnvelope e =
        ok(
            call(
                "\"name\":\"deploy\",\"arguments\":{\"v\":2},\"inputResponses\":{},\"_meta\":{\"k\":1}"));
    assertThat(e.tool()).isEqualTo("deploy");
    assertThat(e.arguments().get("v").asInt()).isEqualTo(2);
    assertThat(e.meta().get("k").asInt()).isEqualTo(1);
    assertThat(e.continuation()).isTrue();
    assertThat(e.id().asInt()).isEqualTo(1);
    assertThat(ok(call("\"name\":\"d\",\"inputResponses\":null")).continuation()).isFalse();
  }

  /** Issue 21 case 8: {@code _meta} values are held to the rules arguments are held to. */
  @Test
  void metaValuesAreValidatedLikeArguments() {
    TallyError huge = refused(call("\"name\":\"d\",\"_meta\":{\"n\":1e400}"));
    assertThat(huge.code()).isEqualTo(TallyError.Code.INVALID_REQUEST);
    assertThat(huge.message()).contains("params._meta/n").doesNotContain("Infinity");
    TallyError lone = refused(call("\"name\":\"d\",\"_meta\":{\"s\":[\"\\ud800\"]}"));
    assertThat(lone.code()).isEqualTo(TallyError.Code.INVALID_REQUEST);
    assertThat(lone.message()).contains("params._meta/s/0").contains("lone surrogate");
    TallyError name = refused(call("\"name\":\"d\",\"_meta\":{\"\\udc00\":1}"));
    assertThat(name.code()).isIn(TallyError.Code.INVALID_REQUEST, TallyError.Code.PARSE_ERROR);
    assertThat(ok(call("\"name\":\"d\",\"_meta\":{\"n\":1e300,\"s\":\"\\ud83d\\ude00\"}")).meta())
        .hasSize(2);
  }

  /** A number literal past Jackson's length limit is named for what it is, not as nesting. */
  @Test
  void anOverlongNumberLiteralIsNotCalledNesting() {
    String digits = "1".repeat(1500);
    TallyError e = refused(call("\"name\":\"d\",\"arguments\":{\"n\":" + digits + "}"));
    assertThat(e.message()).doesNotContain("nesting").contains("number");
    TallyError deep =
        refused(call("\"name\":\"d\",\"arguments\":" + "[".repeat(40) + "]".repeat(40)));
    assertThat(deep.message()).contains("nesting deeper than 32 levels");
  }

  @Test
  void numbersStayExactInTheTree() {
    ToolCallEnvelope e =
        ok(
            call(
                "\"name\":\"pay\",\"arguments\":{\"a\":12345678901234567.89,\"b\":1234567890123456789}"));
    assertThat(e.arguments().get("a").decimalValue()).hasToString("12345678901234567.89");
    assertThat(e.arguments().get("b").bigIntegerValue()).hasToString("1234567890123456789");
  }

  @Test
  void refusesTheEnvelopeNamingTheMemberWithOneCodePerRule() {
    assertThat(
            refused("{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"params\":{\"name\":\"x\"}}")
                .code())
        .isEqualTo(TallyError.Code.INVALID_REQUEST);
    assertThat(
            refused("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":[]}")
                .message())
        .isEqualTo("tools/call: params: expected an object");
    assertThat(refused(call("\"name\":\"\"")).code()).isEqualTo(TallyError.Code.INVALID_REQUEST);
    TallyError args = refused(call("\"name\":\"x\",\"arguments\":[1]"));
    assertThat(args.code()).isEqualTo(TallyError.Code.INVALID_ARGUMENTS);
    assertThat(args.code().rpcCode()).isEqualTo(-32602);
    assertThat(refused(call("\"name\":\"x\",\"_meta\":\"m\"")).message()).contains("params._meta");
  }

  @Test
  void duplicateMembersAreRefusedInsideTheArgumentsAsInvalidArguments() {
    TallyError inArgs = refused(call("\"name\":\"x\",\"arguments\":{\"to\":\"a\",\"to\":\"b\"}"));
    assertThat(inArgs.code()).isEqualTo(TallyError.Code.INVALID_ARGUMENTS);
    assertThat(inArgs.message()).contains("/params/arguments").doesNotContain("\"a\"");
    assertThat(refused(call("\"name\":\"x\",\"_meta\":{\"k\":1,\"k\":2}")).code())
        .isEqualTo(TallyError.Code.INVALID_REQUEST);
  }

  /** Found by BodyClassifierFuzzing: Jackson threw NumberFormatException out of the reader. */
  @Test
  void aNumberTooLargeToHoldIsACodedRefusalThatDoesNotQuoteIt() {
    String big = "1e34444444444444444444444444";
    TallyError inArgs = refused(call("\"name\":\"x\",\"arguments\":{\"n\":" + big + "}"));
    assertThat(inArgs.code()).isEqualTo(TallyError.Code.INVALID_ARGUMENTS);
    assertThat(inArgs.message())
        .isEqualTo("tools/call: number out of range in /params/arguments")
        .doesNotContain("3444");
    TallyError inMeta = refused(call("\"name\":\"x\",\"_meta\":{\"n\":-" + big + "}"));
    assertThat(inMeta.code()).isEqualTo(TallyError.Code.INVALID_REQUEST);
    assertThat(inMeta.message()).doesNotContain("3444");
  }

  @Test
  void theExecutionIdIsSplicedIntoTheClientsBytes() {
    assertThat(upstream(call("\"name\":\"x\",\"arguments\":{\"n\":1.50}")))
        .isEqualTo(
            call(
                "\"_meta\":{\"dev.tally/executionId\":\"act_01TEST\"},\"name\":\"x\",\"arguments\":{\"n\":1.50}"));
    assertThat(upstream(call("\"name\":\"x\",\"_meta\":{ \"a\" : 1 }")))
        .isEqualTo(
            call(
                "\"name\":\"x\",\"_meta\":{\"dev.tally/executionId\":\"act_01TEST\", \"a\" : 1 }"));
    assertThat(upstream(call("\"name\":\"x\",\"_meta\":{}")))
        .isEqualTo(call("\"name\":\"x\",\"_meta\":{\"dev.tally/executionId\":\"act_01TEST\"}"));
    assertThat(upstream(call("\"name\":\"x\",\"_meta\":null")))
        .isEqualTo(call("\"name\":\"x\",\"_meta\":{\"dev.tally/executionId\":\"act_01TEST\"}"));
    // A client-sent execution id is replaced, never duplicated.
    assertThat(
            upstream(
                call("\"name\":\"x\",\"_meta\":{\"dev.tally/executionId\":{\"x\":[1]},\"b\":2}")))
        .isEqualTo(
            call("\"name\":\"x\",\"_meta\":{\"dev.tally/executionId\":\"act_01TEST\",\"b\":2}"));
  }

  @Test
  void splicingKeepsEveryArgumentByteForRandomArguments() throws Exception {
    Random random = new Random(17);
    for (int i = 0; i < 500; i++) {
      String args = RandomJsonText.object(random, 3);
      String body = call("\"name\":\"x\",\"arguments\":" + args);
      String sent = upstream(body);
      assertThat(sent).contains("\"arguments\":" + args);
      JsonNode tree = JSON.readTree(sent);
      assertThat(tree.at("/params/_meta/dev.tally~1executionId").asText()).isEqualTo("act_01TEST");
    }
  }

  /** Small random JSON texts with numbers a double cannot hold and odd whitespace. */
  static final class RandomJsonText {
    static String object(Random r, int depth) {
      StringBuilder b = new StringBuilder("{");
      int n = r.nextInt(4);
      for (int i = 0; i < n; i++) {
        if (i > 0) {
          b.append(r.nextBoolean() ? "," : " ,\n ");
        }
        b.append("\"k").append(i).append("\":").append(value(r, depth - 1));
      }
      return b.append("}").toString();
    }

    static String value(Random r, int depth) {
      return switch (r.nextInt(depth > 0 ? 7 : 5)) {
        case 0 -> Long.toString(r.nextLong()) + r.nextInt(1000);
        case 1 -> r.nextInt(100) + "." + r.nextInt(1000) + "0e" + (r.nextInt(40) - 20);
        case 2 -> "\"s\\u00e9\\n" + r.nextInt() + "\"";
        case 3 -> r.nextBoolean() ? "true" : "null";
        case 4 -> "-0.0";
        case 5 -> object(r, depth);
        default -> "[" + value(r, depth - 1) + " , " + value(r, depth - 1) + "]";
      };
    }
  }
}
