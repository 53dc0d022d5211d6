package dev.tally.sidecar.internal.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ToolCallBodyTest {
  private final JsonRpc json = JsonRpc.create(16);

  private ToolCallBody parse(String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    return ToolCallBody.parse(json, b, 0, b.length);
  }

  @Test
  void readsTheCallAndContinuation() {
    ToolCallBody b =
        parse(
            "{\"jsonrpc\":\"2.0\",\"id\":\"r1\",\"method\":\"tools/call\",\"params\":{\"name\":\"t\","
                + "\"arguments\":{\"x\":1},\"inputResponses\":{\"a\":{}},\"_meta\":{\"k\":1}}}");
    assertThat(b.error()).isNull();
    assertThat(b.tool()).isEqualTo("t");
    assertThat(b.arguments().get("x").asInt()).isEqualTo(1);
    assertThat(b.meta().get("k").asInt()).isEqualTo(1);
    assertThat(b.continuation()).isTrue();
  }

  @Test
  void executionIdIsAddedToMetaWithoutTouchingTheOriginal() throws Exception {
    ToolCallBody b =
        parse(
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"t\"}}");
    JsonNode out = json.mapper().readTree(b.withExecutionId(json, "act_X"));
    assertThat(out.at("/params/_meta/dev.tally~1executionId").asText()).isEqualTo("act_X");
    assertThat(b.meta()).isNull();
    assertThat(b.continuation()).isFalse();
  }

  @Test
  void badCallsNameThePointer() {
    assertThat(parse("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\"}").error())
        .isEqualTo("/params must be an object");
    assertThat(
            parse("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{}}").error())
        .isEqualTo("/params/name must be a non-empty string");
    assertThat(
            parse("{\"jsonrpc\":\"2.0\",\"id\":1,\"params\":{\"name\":\"t\",\"arguments\":[1]}}")
                .error())
        .isEqualTo("/params/arguments must be an object");
    assertThat(
            parse("{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"params\":{\"name\":\"t\"}}")
                .error())
        .isEqualTo("/id is required for tools/call");
    assertThat(parse("{\"jsonrpc\":\"2.0\",\"id\":{},\"params\":{\"name\":\"t\"}}").error())
        .isEqualTo("/id must be a string or an integer");
  }

  @Test
  void duplicateKeysAndDepthAreRefused() {
    assertThat(parse("{\"id\":1,\"id\":2}").error()).isEqualTo("duplicate object key");
    ToolCallBody deep =
        parse(
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"params\":{\"name\":\"t\",\"arguments\":"
                + "{\"a\":".repeat(30)
                + "1"
                + "}".repeat(30)
                + "}}");
    assertThat(deep.tooDeep()).isTrue();
    assertThat(deep.error()).contains("16");
  }
}
