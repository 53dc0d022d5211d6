package dev.tally.sidecar.internal.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;

class EventIdTest {
  @Test
  void roundTripsThroughTheWireForm() {
    String stream = EventId.newStreamId(new Random(1));
    EventId id = new EventId(stream, 42);
    assertThat(id.toString()).isEqualTo(stream + ".42");
    assertThat(EventId.parse(id.toString())).isEqualTo(id);
  }

  @Test
  void streamIdsAreDistinctAndUrlSafe() {
    String a = EventId.newStreamId();
    String b = EventId.newStreamId();
    assertThat(a).isNotEqualTo(b).hasSize(22).matches("[A-Za-z0-9_-]+");
  }

  @Test
  void foreignOrHostileIdsParseToNull() {
    String s = EventId.newStreamId(new Random(2));
    assertThat(EventId.parse(null)).isNull();
    assertThat(EventId.parse("")).isNull();
    assertThat(EventId.parse("12")).isNull();
    assertThat(EventId.parse(s)).isNull();
    assertThat(EventId.parse(s + ".")).isNull();
    assertThat(EventId.parse(s + ".-1")).isNull();
    assertThat(EventId.parse(s + ".1x")).isNull();
    assertThat(EventId.parse(s + ".1234567890123456789")).isNull();
    assertThat(EventId.parse(s.substring(1) + "!.1")).isNull();
    assertThat(EventId.parse("session-id-from-java-sdk")).isNull();
  }
}
