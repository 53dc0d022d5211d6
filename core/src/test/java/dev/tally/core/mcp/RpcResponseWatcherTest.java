package dev.tally.core.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RpcResponseWatcherTest {
  private final List<RpcOutcome> seen = new ArrayList<>();

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void findsTheResultInAStreamAsSoonAsItsEventEnds() {
    RpcResponseWatcher w =
        RpcResponseWatcher.forContentType(
            "text/event-stream;charset=utf-8", IntNode.valueOf(7), 1 << 20, seen::add);
    byte[] progress =
        b(
            "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n");
    w.feed(progress, 0, progress.length);
    byte[] result =
        b(
            "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":7.0,\"result\":{\"content\":[],\"isError\":true}}\n");
    w.feed(result, 0, result.length);
    assertThat(seen).isEmpty();
    w.feed(b("\n"), 0, 1);

    assertThat(seen).singleElement().isInstanceOf(RpcOutcome.Result.class);
    RpcOutcome.Result r = (RpcOutcome.Result) seen.get(0);
    assertThat(r.isError()).isTrue();
    assertThat(new String(r.result(), StandardCharsets.UTF_8))
        .isEqualTo("{\"content\":[],\"isError\":true}");
  }

  @Test
  void otherIdsAndServerRequestsAreNotTheAnswer() {
    RpcResponseWatcher w =
        RpcResponseWatcher.forContentType(
            "text/event-stream", TextNode.valueOf("a"), 1 << 20, seen::add);
    byte[] s =
        b(
            "data: {\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"sampling/createMessage\"}\n\n"
                + "data: {\"jsonrpc\":\"2.0\",\"id\":\"b\",\"result\":{}}\n\n"
                + "data: not json\n\n");
    w.feed(s, 0, s.length);
    w.end();
    assertThat(seen).isEmpty();
    assertThat(w.outcome()).isNull();
  }

  @Test
  void jsonBodyIsExaminedAtTheEnd() {
    RpcResponseWatcher w =
        RpcResponseWatcher.forContentType(
            "application/json", IntNode.valueOf(1), 1 << 20, seen::add);
    byte[] s = b("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32602,\"message\":\"bad\"}}");
    w.feed(s, 0, 10);
    w.feed(s, 10, s.length - 10);
    assertThat(seen).isEmpty();
    w.end();
    assertThat(seen)
        .singleElement()
        .isEqualTo(new RpcOutcome.Error(new dev.tally.core.execution.RpcError(-32602, "bad")));
  }

  @Test
  void anErrorKeepsItsDataWithEveryDigit() {
    RpcOutcome o =
        RpcResponseWatcher.outcomeOf(
            b(
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32000,\"message\":\"m\","
                    + "\"data\":{\"n\":123456789012345678901234567890.10}}}"),
            IntNode.valueOf(1));
    assertThat(o)
        .isEqualTo(
            new RpcOutcome.Error(
                new dev.tally.core.execution.RpcError(-32000, "m"),
                b("{\"n\":123456789012345678901234567890.10}")));
  }

  @Test
  void inputRequiredIsMarked() {
    RpcResponseWatcher w =
        RpcResponseWatcher.forContentType("application/json", null, 1 << 20, seen::add);
    byte[] s =
        b(
            "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"resultType\":\"input_required\",\"requestState\":\"x\"}}");
    w.feed(s, 0, s.length);
    w.end();
    assertThat(((RpcOutcome.Result) seen.get(0)).inputRequired()).isTrue();
  }

  @Test
  void bodyOverTheLimitOverflowsInsteadOfGrowing() {
    RpcResponseWatcher w =
        RpcResponseWatcher.forContentType("application/json", null, 16, seen::add);
    byte[] s = b("{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}");
    w.feed(s, 0, s.length);
    w.end();
    assertThat(w.overflowed()).isTrue();
    assertThat(seen).isEmpty();
  }

  @Test
  void otherContentTypesAreNotWatched() {
    assertThat(RpcResponseWatcher.forContentType("text/html", null, 16, seen::add)).isNull();
    assertThat(RpcResponseWatcher.forContentType(null, null, 16, seen::add)).isNull();
  }

  @Test
  void theResultIsSlicedVerbatimWhereverTheIdIs() {
    RpcResponseWatcher w =
        RpcResponseWatcher.forContentType(
            "application/json", TextNode.valueOf("z"), 1 << 20, seen::add);
    byte[] s =
        b(
            "{ \"result\" : {\"content\":[{\"type\":\"text\",\"text\":\"é \\\"}\"}],\"isError\":false} , \"jsonrpc\":\"2.0\", \"id\":\"z\"}");
    w.feed(s, 0, s.length);
    w.end();
    assertThat(new String(((RpcOutcome.Result) seen.get(0)).result(), StandardCharsets.UTF_8))
        .isEqualTo("{\"content\":[{\"type\":\"text\",\"text\":\"é \\\"}\"}],\"isError\":false}");
  }

  @Test
  void aResultWithTheRightIdButAMethodIsNotAnAnswer() {
    RpcResponseWatcher w =
        RpcResponseWatcher.forContentType(
            "text/event-stream", IntNode.valueOf(1), 1 << 20, seen::add);
    byte[] s =
        b(
            "data: {\"id\":1,\"result\":{},\"method\":\"x\"}\n\ndata: {\"id\":[1],\"result\":{}}\n\n");
    w.feed(s, 0, s.length);
    assertThat(seen).isEmpty();
  }

  @Test
  void oneFramedMessageIsReadOnItsOwn() {
    String result = "{\"content\":[{\"type\":\"text\",\"text\":\"ok\"}],\"isError\":true}";
    byte[] msg = b("{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":" + result + "}");
    RpcOutcome.Result r = (RpcOutcome.Result) RpcResponseWatcher.outcomeOf(msg, IntNode.valueOf(3));
    assertThat(new String(r.result(), StandardCharsets.UTF_8)).isEqualTo(result);
    assertThat(r.isError()).isTrue();
    assertThat(RpcResponseWatcher.outcomeOf(msg, TextNode.valueOf("3"))).isNull();
    RpcOutcome.Result input =
        (RpcOutcome.Result)
            RpcResponseWatcher.outcomeOf(
                b("{\"id\":\"x\",\"result\":{\"resultType\":\"input_required\"}}"),
                TextNode.valueOf("x"));
    assertThat(input.inputRequired()).isTrue();
    RpcOutcome.Error e =
        (RpcOutcome.Error)
            RpcResponseWatcher.outcomeOf(
                b(
                    "{\"id\":1,\"error\":{\"code\":-32602,\"message\":\"bad\",\"data\":{\"k\":[1]}}}"),
                IntNode.valueOf(1));
    assertThat(e.error().code()).isEqualTo(-32602);
    assertThat(e.error().message()).isEqualTo("bad");
    assertThat(RpcResponseWatcher.outcomeOf(b("{\"id\":1,\"method\":\"x\"}"), IntNode.valueOf(1)))
        .isNull();
    assertThat(RpcResponseWatcher.outcomeOf(b("not json"), IntNode.valueOf(1))).isNull();
  }
}
