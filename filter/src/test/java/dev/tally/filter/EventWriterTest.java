package dev.tally.filter;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** {@link EventWriter} in memory: Tally's events land only between the application's. */
class EventWriterTest {
  private static final String OURS = "event: message\ndata: {\"n\":1}\n\n";

  private final StringWriter text = new StringWriter();
  private final AtomicBoolean sse = new AtomicBoolean(true);
  private final EventWriter w = new EventWriter(new PrintWriter(text), sse::get);

  @Test
  void anEventAddedMidEventWaitsUntilTheApplicationsEventEnds() {
    w.write("id: s1\nevent: mess");
    assertThat(w.inject(OURS)).isTrue();
    assertThat(text.toString()).isEqualTo("id: s1\nevent: mess");
    w.write("age\ndata: {}\n");
    assertThat(text.toString())
        .as("one line end is not the end of an event")
        .doesNotContain("n\":1");
    w.write('\n');
    w.flush();
    assertThat(text.toString()).isEqualTo("id: s1\nevent: message\ndata: {}\n\n" + OURS);
  }

  @Test
  void anEventBetweenEventsOrBeforeAnyIsWrittenAtOnce() {
    assertThat(w.inject(OURS)).isTrue();
    assertThat(text.toString()).isEqualTo(OURS);
    char[] crlf = "data: {}\r\n\r\n".toCharArray();
    w.write(crlf, 0, crlf.length);
    w.inject(OURS);
    assertThat(text.toString()).isEqualTo(OURS + "data: {}\r\n\r\n" + OURS);
  }

  @Test
  void aCrLfPairIsOneLineEnd() {
    w.write("data: {}\r\n");
    w.inject(OURS);
    assertThat(text.toString()).isEqualTo("data: {}\r\n");
    w.write("\r\n");
    assertThat(text.toString()).isEqualTo("data: {}\r\n\r\n" + OURS);
  }

  @Test
  void nothingIsAddedToAnAnswerThatIsNotAnEventStreamNorAfterClose() {
    sse.set(false);
    assertThat(w.inject(OURS)).isTrue();
    assertThat(text.toString()).isEmpty();
    sse.set(true);
    w.close();
    assertThat(w.inject(OURS)).isFalse();
    assertThat(w.gone()).isTrue();
    assertThat(text.toString()).isEmpty();
  }
}
