package dev.tally.core.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SseParserTest {
  private final List<SseEvent> events = new ArrayList<>();

  private SseParser parser(int max) {
    return SseParser.create(events::add, max);
  }

  @Test
  void parsesEventsSplitAtEveryByte() {
    byte[] stream =
        "id: s1\nevent: message\ndata: {\"a\":\"é\"}\n\n: comment\ndata: x\ndata: y\r\n\r\n"
            .getBytes(StandardCharsets.UTF_8);
    SseParser p = parser(1024);
    for (byte b : stream) {
      p.feed(new byte[] {b});
    }
    assertThat(events).hasSize(2);
    assertThat(events.get(0).id()).isEqualTo("s1");
    assertThat(events.get(0).type()).isEqualTo("message");
    assertThat(events.get(0).data()).isEqualTo("{\"a\":\"é\"}");
    assertThat(events.get(1).data()).isEqualTo("x\ny");
    assertThat(events.get(1).type()).isEqualTo("message");
  }

  @Test
  void crLfSplitAcrossChunksIsOneLineEnd() {
    SseParser p = parser(1024);
    p.feed("data: a\r".getBytes(StandardCharsets.US_ASCII));
    p.feed("\n\r".getBytes(StandardCharsets.US_ASCII));
    p.feed("\ndata: b\r\r".getBytes(StandardCharsets.US_ASCII));
    assertThat(events).extracting(SseEvent::data).containsExactly("a", "b");
  }

  @Test
  void skipsABomAndIgnoresEventsWithoutData() {
    SseParser p = parser(1024);
    p.feed(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF});
    p.feed("id: 1\n\nretry: 10\nfoo\ndata\n\n".getBytes(StandardCharsets.US_ASCII));
    assertThat(events).hasSize(1);
    assertThat(events.get(0).data()).isEmpty();
    assertThat(p.lastEventId()).isEqualTo("1");
  }

  @Test
  void anUnfinishedEventAtTheEndIsDropped() {
    SseParser p = parser(1024);
    p.feed("data: partial\n".getBytes(StandardCharsets.US_ASCII));
    p.end();
    assertThat(events).isEmpty();
  }

  @Test
  void oversizedEventIsTruncatedNotBuffered() {
    SseParser p = parser(16);
    p.feed(
        ("data: " + "x".repeat(10_000) + "\n\ndata: ok\n\n").getBytes(StandardCharsets.US_ASCII));
    assertThat(events).hasSize(2);
    assertThat(events.get(0).truncated()).isTrue();
    assertThat(events.get(0).data().length()).isLessThanOrEqualTo(16);
    assertThat(events.get(1).data()).isEqualTo("ok");
    assertThat(events.get(1).truncated()).isFalse();
  }

  @Test
  void idWithNulIsIgnored() {
    SseParser p = parser(64);
    p.feed("id: a\0b\ndata: x\n\n".getBytes(StandardCharsets.US_ASCII));
    assertThat(events.get(0).id()).isNull();
  }
}
