package dev.tally.core.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The one SSE parser and writer of both adapters, in memory, split and hostile input first. */
class SseParserTest {
  private final List<SseEvent> events = new ArrayList<>();
  private final SseParser parser = SseParser.create(events::add, 1024);

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void parsesFieldsAndJoinsDataLines() {
    parser.feed(b("id: 7\nevent: message\nretry: 1500\ndata: {\"a\":\ndata: 1}\n\n"));
    assertThat(events).hasSize(1);
    SseEvent e = events.get(0);
    assertThat(e.id()).isEqualTo("7");
    assertThat(e.type()).isEqualTo("message");
    assertThat(e.retry()).isEqualTo(1500);
    assertThat(e.dataString()).isEqualTo("{\"a\":\n1}");
    assertThat(parser.lastEventId()).isEqualTo("7");
  }

  @Test
  void everySplitPointGivesTheSameEvents() {
    String stream = "\uFEFFdata: héllo\r\n\r\n: comment\rdata:x\r\rid: 3\ndata: y\n\n";
    byte[] all = b(stream);
    for (int cut = 0; cut <= all.length; cut++) {
      List<SseEvent> got = new ArrayList<>();
      SseParser p = SseParser.create(got::add, 1024);
      p.feed(all, 0, cut);
      p.feed(all, cut, all.length - cut);
      assertThat(got).extracting(SseEvent::dataString).containsExactly("héllo", "x", "y");
      assertThat(got.get(2).id()).isEqualTo("3");
      assertThat(got.get(0).id()).isNull();
    }
  }

  @Test
  void byteByByteFeedingAndCrLfSplitAcrossChunks() {
    for (byte x : b("data: one\r\n\r\ndata: two\n\n")) {
      parser.feed(new byte[] {x});
    }
    parser.feed(b("data: a\r"));
    parser.feed(b("\n\r"));
    parser.feed(b("\ndata: b\r\r"));
    assertThat(events).extracting(SseEvent::dataString).containsExactly("one", "two", "a", "b");
  }

  @Test
  void aPrimingEventAndARetryFieldReachTheRelayWithoutData() {
    parser.feed(b("id: s.0\ndata:\n\nretry: 3000\n\nid: 9\n\n"));
    assertThat(events).hasSize(3);
    assertThat(events.get(0).id()).isEqualTo("s.0");
    assertThat(events.get(0).hasData()).isFalse();
    assertThat(events.get(1).retry()).isEqualTo(3000);
    assertThat(events.get(1).id()).isNull();
    assertThat(events.get(2).id()).isEqualTo("9");
  }

  @Test
  void aBlockWithNoDataIdOrRetryIsNotDispatched() {
    parser.feed(b("event: x\n\n: keep-alive\n\nretry: 12x\nfoo: bar\n\n"));
    assertThat(events).isEmpty();
  }

  @Test
  void idWithNulIsIgnored() {
    parser.feed(b("id: a\0b\ndata: x\n\n"));
    assertThat(events.get(0).id()).isNull();
  }

  @Test
  void anUnfinishedFinalEventIsDiscardedAtEnd() {
    parser.feed(b("data: partial"));
    parser.end();
    parser.feed(b("data: partial\n"));
    parser.end();
    assertThat(events).isEmpty();
  }

  @Test
  void anOversizedEventIsReportedOnceAsTruncatedWithoutDataAndTheStreamGoesOn() {
    SseParser small = SseParser.create(events::add, 16);
    small.feed(b("data: " + "x".repeat(10_000) + "\ndata: more\nid: 5\n\ndata: ok\n\n"));
    assertThat(events).hasSize(2);
    assertThat(events.get(0).truncated()).isTrue();
    assertThat(events.get(0).data()).isEmpty();
    assertThat(events.get(1).dataString()).isEqualTo("ok");
    assertThat(events.get(1).truncated()).isFalse();
  }

  @Test
  void manySmallLinesCountTowardsTheLimit() {
    SseParser small = SseParser.create(events::add, 64);
    small.feed(b("data: x\n".repeat(40) + "\n"));
    assertThat(events).singleElement().satisfies(e -> assertThat(e.truncated()).isTrue());
  }

  @Test
  void anEndlessLineNeverGrowsPastTheLimit() {
    SseParser small = SseParser.create(events::add, 1024);
    byte[] chunk = b("y".repeat(4096));
    for (int i = 0; i < 1000; i++) {
      small.feed(chunk);
    }
    small.feed(b("\n\n"));
    assertThat(events).singleElement().satisfies(e -> assertThat(e.truncated()).isTrue());
  }

  @Test
  void writerOutputParsesBackToTheSameEvent() {
    SseEvent e = new SseEvent("abc.1", "message", b("line1\nline2\r\nline3"), 100, false);
    parser.feed(SseWriter.encode(e));
    assertThat(events).hasSize(1);
    assertThat(events.get(0).id()).isEqualTo("abc.1");
    assertThat(events.get(0).dataString()).isEqualTo("line1\nline2\nline3");
    assertThat(events.get(0).retry()).isEqualTo(100);
    assertThat(events.get(0).type()).isEqualTo("message");
  }

  @Test
  void writerStripsLineBreaksFromIdAndType() {
    byte[] out = SseWriter.encode(new SseEvent("a\nid: evil", "x\ndata: y", b("z"), -1, false));
    parser.feed(out);
    assertThat(events).hasSize(1);
    assertThat(events.get(0).id()).isEqualTo("aid: evil");
    assertThat(events.get(0).dataString()).isEqualTo("z");
  }

  @Test
  void aPrimingEventWritesAnIdARetryAndEmptyData() {
    assertThat(new String(SseWriter.priming("s.0", 2000), StandardCharsets.UTF_8))
        .isEqualTo("id: s.0\nretry: 2000\ndata: \n\n");
    assertThat(new String(SseWriter.message(b("{}")), StandardCharsets.UTF_8))
        .isEqualTo("event: message\ndata: {}\n\n");
  }
}
