package dev.tally.core.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SseFramesTest {
  @Test
  void framesOneMessageEventThatTheParserReadsBack() {
    byte[] json = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}".getBytes(StandardCharsets.UTF_8);
    byte[] frame = SseFrames.message(json);
    assertThat(new String(frame, StandardCharsets.UTF_8))
        .isEqualTo("event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n");
    List<SseEvent> events = new ArrayList<>();
    SseParser.create(events::add).feed(frame);
    assertThat(events)
        .singleElement()
        .extracting(SseEvent::data)
        .isEqualTo(new String(json, StandardCharsets.UTF_8));
  }

  @Test
  void refusesJsonWithLineBreaks() {
    assertThatThrownBy(() -> SseFrames.message("{\n}".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
