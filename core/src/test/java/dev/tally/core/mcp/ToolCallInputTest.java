package dev.tally.core.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The MRTR members of a {@code tools/call} as {@link ToolCallReader} reads them, and the call's
 * bytes without them ({@link ToolCallEnvelope#withoutInput()}): every other byte unchanged,
 * whatever the members' order, position and whitespace.
 */
class ToolCallInputTest {
  final ToolCallReader reader = ToolCallReader.create(WireJson.defaults());

  ToolCallEnvelope read(String params) {
    byte[] b =
        ("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":" + params + "}")
            .getBytes(StandardCharsets.UTF_8);
    // Read from an offset, as batch elements are.
    byte[] padded = new byte[b.length + 3];
    System.arraycopy(b, 0, padded, 3, b.length);
    ToolCallReader.Read r = reader.read(padded, 3, b.length);
    assertThat(r).as(params).isInstanceOf(ToolCallReader.Ok.class);
    return ((ToolCallReader.Ok) r).envelope();
  }

  String without(String params) {
    return new String(read(params).withoutInput(), StandardCharsets.UTF_8);
  }

  static String call(String params) {
    return "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":" + params + "}";
  }

  @Test
  void readsTheRequestStateAndTheResponses() {
    ToolCallEnvelope e =
        read(
            "{\"name\":\"pay\",\"inputResponses\":{\"a\":{\"action\":\"accept\"}},"
                + "\"requestState\":\"tally1.x\"}");
    assertThat(e.continuation()).isTrue();
    assertThat(e.requestState()).isEqualTo("tally1.x");
    assertThat(e.inputResponses().path("a").path("action").asText()).isEqualTo("accept");
    ToolCallEnvelope none = read("{\"name\":\"pay\"}");
    assertThat(none.continuation()).isFalse();
    assertThat(none.requestState()).isNull();
    assertThat(none.inputResponses()).isNull();
  }

  @Test
  void aRequestStateThatIsNotAStringIsRefused() {
    byte[] b = call("{\"name\":\"pay\",\"requestState\":{}}").getBytes(StandardCharsets.UTF_8);
    ToolCallReader.Read r = reader.read(b, 0, b.length);
    assertThat(r).isInstanceOf(ToolCallReader.Refused.class);
    assertThat(((ToolCallReader.Refused) r).error().message()).contains("params.requestState");
  }

  @Test
  void removesBothMembersWhereverTheyStand() {
    String bare = "{\"name\":\"pay\",\"arguments\":{\"a\":1.50}}";
    for (String params :
        new String[] {
          "{\"name\":\"pay\",\"arguments\":{\"a\":1.50},\"inputResponses\":{\"k\":{}},"
              + "\"requestState\":\"s\"}",
          "{\"inputResponses\":{\"k\":{}},\"requestState\":\"s\",\"name\":\"pay\","
              + "\"arguments\":{\"a\":1.50}}",
          "{\"requestState\":\"s\",\"name\":\"pay\",\"inputResponses\":{\"k\":[1,{\"x\":\"}\"}]},"
              + "\"arguments\":{\"a\":1.50}}",
          "{\"name\":\"pay\" , \"requestState\" : \"s\" ,\"arguments\":{\"a\":1.50}}",
          "{\"name\":\"pay\",\"arguments\":{\"a\":1.50}\n,\n\"inputResponses\" : null}",
        }) {
      assertThat(without(params).replace(" ", "").replace("\n", ""))
          .as(params)
          .isEqualTo(call(bare));
    }
    assertThat(without("{\"requestState\":\"s\",\"name\":\"p\"}"))
        .isEqualTo(call("{\"name\":\"p\"}"));
    assertThat(without("{\"name\":\"p\",\"requestState\":\"s\"}"))
        .isEqualTo(call("{\"name\":\"p\"}"));
    assertThat(without(bare)).isEqualTo(call(bare));
  }
}
