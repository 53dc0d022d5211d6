package dev.tally.sidecar.internal.sse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

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
    }
  }

  @Test
  void byteByByteFeedingWorks() {
    byte[] all = b("data: one\r\n\r\ndata: two\n\n");
    for (byte x : all) {
      parser.feed(new byte[] {x});
    }
    assertThat(events).extracting(SseEvent::dataString).containsExactly("one", "two");
  }

  @Test
  void emptyDataFieldIsDispatchedAsPrimingEvent() {
    parser.feed(b("id: s.0\ndata:\n\n"));
    assertThat(events).hasSize(1);
    assertThat(events.get(0).data()).isEmpty();
    assertThat(events.get(0).id()).isEqualTo("s.0");
  }

  @Test
  void blockWithoutDataIsNotDispatched() {
    parser.feed(b("id: 1\nevent: x\n\n: keep-alive\n\n"));
    assertThat(events).isEmpty();
  }

  @Test
  void fieldWithoutColonAndUnknownFieldsAreHandled() {
    parser.feed(b("data\nfoo: bar\nretry: 12x\n\n"));
    assertThat(events).hasSize(1);
    assertThat(events.get(0).dataString()).isEmpty();
    assertThat(events.get(0).retry()).isEqualTo(-1);
  }

  @Test
  void idWithNulIsIgnored() {
    parser.feed(b("id: a\0b\ndata: x\n\n"));
    assertThat(events.get(0).id()).isNull();
  }

  @Test
  void incompleteFinalEventIsDiscardedAtEnd() {
    parser.feed(b("data: partial"));
    parser.end();
    assertThat(events).isEmpty();
  }

  @Test
  void oversizedEventIsRefusedWithoutEcho() {
    SseParser small = SseParser.create(events::add, 16);
    assertThatThrownBy(() -> small.feed(b("data: 0123456789abcdefghij\n\n")))
        .isInstanceOf(SseException.class)
        .hasMessageContaining("16 bytes")
        .hasMessageNotContaining("0123");
  }

  @Test
  void manySmallLinesCountTowardsTheLimit() {
    SseParser small = SseParser.create(events::add, 64);
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < 40; i++) {
      s.append("data: x\n");
    }
    assertThatThrownBy(() -> small.feed(b(s.toString()))).isInstanceOf(SseException.class);
  }

  @Test
  void writerOutputParsesBackToTheSameEvent() {
    SseEvent e = new SseEvent("abc.1", "message", b("line1\nline2\r\nline3"), 100);
    parser.feed(SseWriter.encode(e));
    assertThat(events).hasSize(1);
    assertThat(events.get(0).id()).isEqualTo("abc.1");
    assertThat(events.get(0).dataString()).isEqualTo("line1\nline2\nline3");
    assertThat(events.get(0).retry()).isEqualTo(100);
    assertThat(events.get(0).type()).isNull();
  }

  @Test
  void writerStripsLineBreaksFromIdAndType() {
    byte[] out = SseWriter.encode(new SseEvent("a\nid: evil", "x\ndata: y", b("z"), -1));
    parser.feed(out);
    assertThat(events).hasSize(1);
    assertThat(events.get(0).id()).isEqualTo("aid: evil");
    assertThat(events.get(0).dataString()).isEqualTo("z");
  }
}
