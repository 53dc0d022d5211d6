package dev.tally.core.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tally.core.testing.FuzzBudget;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;

/**
 * Coverage-guided fuzzing (Jazzer) of the SSE parser (issue 21). Properties: it never throws; the
 * events do not depend on how the stream is cut into chunks; no event holds more data than the
 * bound; and every complete event survives a round trip through {@link SseWriter} (written and
 * parsed again it is the same event). How to run it: {@code
 * core/src/test/resources/fuzz/README.md}.
 */
class SseParserFuzzing {
  private static final int MAX_EVENT_BYTES = 256;

  @FuzzTest(maxDuration = FuzzBudget.CI)
  void eventsAreSplitInvariantAndRoundTrip(FuzzedDataProvider data) {
    long splitSeed = data.consumeLong();
    byte[] stream = data.consumeRemainingAsBytes();
    List<SseEvent> whole = parse(stream, null);
    assertThat(text(parse(stream, new Random(splitSeed)))).isEqualTo(text(whole));
    for (SseEvent e : whole) {
      assertThat(e.data().length).isLessThanOrEqualTo(MAX_EVENT_BYTES);
      if (e.truncated()) {
        assertThat(e.data()).isEmpty();
        continue;
      }
      byte[] written = SseWriter.encode(e);
      List<SseEvent> back = new ArrayList<>();
      SseParser p = SseParser.create(back::add, written.length + 1);
      p.feed(written, 0, written.length);
      p.end();
      assertThat(text(back)).containsExactly(text(e));
    }
  }

  private static List<SseEvent> parse(byte[] stream, Random split) {
    List<SseEvent> events = new ArrayList<>();
    SseParser p = SseParser.create(events::add, MAX_EVENT_BYTES);
    if (split == null) {
      p.feed(stream, 0, stream.length);
    } else {
      int i = 0;
      while (i < stream.length) {
        int n = 1 + split.nextInt(Math.min(16, stream.length - i));
        p.feed(stream, i, n);
        i += n;
      }
    }
    p.end();
    return events;
  }

  /** Events as comparable text ({@link SseEvent} compares by identity). */
  private static List<String> text(List<SseEvent> events) {
    return events.stream().map(SseParserFuzzing::text).toList();
  }

  private static String text(SseEvent e) {
    return e.id()
        + "|"
        + e.type()
        + "|"
        + e.retry()
        + "|"
        + e.truncated()
        + "|"
        + HexFormat.of().formatHex(e.data());
  }
}
