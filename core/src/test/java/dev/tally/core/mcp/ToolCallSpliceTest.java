package dev.tally.core.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tally.core.testing.ForwardedBytes;
import dev.tally.core.testing.RandomToolCalls;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The splice of the execution id into the client's bytes, over seeded random calls, in memory: the
 * property both adapters are held to end to end ({@code ExactArgumentsSuite}), and proof that its
 * check catches a body that was rewritten instead of spliced.
 */
class ToolCallSpliceTest {
  private static final ToolCallReader READER = ToolCallReader.create(WireJson.defaults());
  private static final String ID = "act_01JDXTESTTESTTESTTESTTESTX";

  private static ToolCallEnvelope read(byte[] b) {
    ToolCallReader.Read r = READER.read(b, 0, b.length);
    assertThat(r).as(new String(b, StandardCharsets.UTF_8)).isInstanceOf(ToolCallReader.Ok.class);
    return ((ToolCallReader.Ok) r).envelope();
  }

  @Test
  void randomCallsKeepEveryByteButTheExecutionId() {
    RandomToolCalls random = new RandomToolCalls(7);
    for (int i = 0; i < 2000; i++) {
      byte[] sent = random.call("transfer", i).getBytes(StandardCharsets.UTF_8);
      byte[] upstream = read(sent).withExecutionId(ID);
      assertThat(ForwardedBytes.assertForwardedExactly(sent, upstream)).isEqualTo(ID);
    }
  }

  private static final String TP = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

  @Test
  void randomCallsKeepEveryByteButTheExecutionIdAndTraceContext() {
    RandomToolCalls random = new RandomToolCalls(11);
    for (int i = 0; i < 2000; i++) {
      byte[] sent = random.call("transfer", i).getBytes(StandardCharsets.UTF_8);
      byte[] upstream = read(sent).forUpstream(ID, TP, i % 2 == 0 ? "ot=p:8;r:62,v=\"x\"" : null);
      assertThat(ForwardedBytes.assertForwardedExactly(sent, upstream)).isEqualTo(ID);
      JsonNode meta = tree(upstream).path("params").path("_meta");
      assertThat(meta.path("traceparent").asText()).isEqualTo(TP);
      if (i % 2 == 0) {
        assertThat(meta.path("tracestate").asText()).isEqualTo("ot=p:8;r:62,v=\"x\"");
      }
    }
  }

  @Test
  void traceContextGoesIntoEveryShapeOfMeta() throws Exception {
    String prefix = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{";
    String[][] cases = {
      {
        "\"name\":\"x\"",
        "\"_meta\":{\"dev.tally/executionId\":\""
            + ID
            + "\",\"traceparent\":\""
            + TP
            + "\"},\"name\":\"x\""
      },
      {
        "\"name\":\"x\",\"_meta\":null",
        "\"name\":\"x\",\"_meta\":{\"dev.tally/executionId\":\""
            + ID
            + "\",\"traceparent\":\""
            + TP
            + "\"}"
      },
      {
        "\"name\":\"x\",\"_meta\":{}",
        "\"name\":\"x\",\"_meta\":{\"dev.tally/executionId\":\""
            + ID
            + "\",\"traceparent\":\""
            + TP
            + "\"}"
      },
      {
        "\"name\":\"x\",\"_meta\":{ \"a\" : 1 }",
        "\"name\":\"x\",\"_meta\":{\"dev.tally/executionId\":\""
            + ID
            + "\",\"traceparent\":\""
            + TP
            + "\", \"a\" : 1 }"
      },
      // The caller's traceparent is replaced in place; its tracestate stays when Tally has none.
      {
        "\"name\":\"x\",\"_meta\":{\"traceparent\": \"00-1-2-01\",\"tracestate\":\"a=b\"}",
        "\"name\":\"x\",\"_meta\":{\"dev.tally/executionId\":\""
            + ID
            + "\",\"traceparent\": \""
            + TP
            + "\",\"tracestate\":\"a=b\"}"
      },
    };
    for (String[] c : cases) {
      byte[] sent = (prefix + c[0] + "}}").getBytes(StandardCharsets.UTF_8);
      assertThat(new String(read(sent).forUpstream(ID, TP, null), StandardCharsets.UTF_8))
          .isEqualTo(prefix + c[1] + "}}");
    }
    byte[] withState =
        (prefix
                + "\"name\":\"x\",\"_meta\":{\"tracestate\":\"old=1\",\"dev.tally/executionId\":7}}}")
            .getBytes(StandardCharsets.UTF_8);
    assertThat(new String(read(withState).forUpstream(ID, TP, "new=2"), StandardCharsets.UTF_8))
        .isEqualTo(
            prefix
                + "\"name\":\"x\",\"_meta\":{\"traceparent\":\""
                + TP
                + "\",\"tracestate\":\"new=2\",\"dev.tally/executionId\":\""
                + ID
                + "\"}}}");
    // Not a header value (a control character): left out, never spliced unescaped.
    byte[] plain = (prefix + "\"name\":\"x\"}}").getBytes(StandardCharsets.UTF_8);
    assertThat(tree(read(plain).forUpstream(ID, TP, "a=\u0001")).path("params").path("_meta"))
        .hasSize(2);
  }

  private static JsonNode tree(byte[] b) {
    try {
      return new ObjectMapper().readTree(b);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void theCheckRefusesABodyRewrittenThroughDoubles() throws Exception {
    String sent =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"pay\","
            + "\"arguments\":{\"amount\":12345678901234567.89}}}";
    ObjectNode tree = (ObjectNode) new ObjectMapper().readTree(sent);
    ((ObjectNode) tree.get("params")).putObject("_meta").put(ForwardedBytes.EXECUTION_ID, ID);
    byte[] rewritten = new ObjectMapper().writeValueAsBytes(tree);

    assertThat(new String(rewritten, StandardCharsets.UTF_8)).contains("1.2345678901234568E16");
    assertThatThrownBy(
            () ->
                ForwardedBytes.assertForwardedExactly(
                    sent.getBytes(StandardCharsets.UTF_8), rewritten))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("raw arguments");
  }

  @Test
  void theCheckRefusesAnyOtherChange() {
    byte[] sent =
        ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"pay\","
                + "\"arguments\":{\"amount\":1.50, \"to\":\"b\"},\"_meta\":{\"progressToken\":1}}}")
            .getBytes(StandardCharsets.UTF_8);
    String spliced = new String(read(sent).withExecutionId(ID), StandardCharsets.UTF_8);
    ForwardedBytes.assertForwardedExactly(sent, spliced.getBytes(StandardCharsets.UTF_8));
    String[] tampered = {
      spliced.replace("1.50, ", "1.50,"), // whitespace inside the arguments
      spliced.replace("1.50", "1.5"), // a number re-spelled
      spliced.replace("\"id\":1,", "\"id\": 1,"), // whitespace outside params
      spliced.replace("\"progressToken\":1", "\"progressToken\":2"), // another _meta member
      spliced.replace("{\"jsonrpc\":\"2.0\",\"id\":1,", "{\"id\":1,\"jsonrpc\":\"2.0\","),
      spliced.replace(ID, "not-an-execution-id")
    };
    for (String t : tampered) {
      assertThat(t).isNotEqualTo(spliced);
      assertThatThrownBy(
              () -> ForwardedBytes.assertForwardedExactly(sent, t.getBytes(StandardCharsets.UTF_8)))
          .as(t)
          .isInstanceOf(AssertionError.class);
    }
  }
}
