package dev.tally.sidecar.internal.stream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.core.call.Delivery;
import dev.tally.core.mcp.SseEvent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The total bound of all resumption buffers (issue 21 case 3): abandoned answers no client reads
 * cannot pile up; eviction takes ended streams first, then unattended, then attached, and an
 * evicted stream is unknown to a resume but still tells its deliveries the truth.
 */
class StreamBudgetTest {
  private final AtomicReference<Instant> now =
      new AtomicReference<>(Instant.parse("2026-01-01T00:00:00Z"));
  private final InstantSource clock = () -> now.get();
  private static final int EVENT = 10_000;
  private final StreamRegistry registry =
      StreamRegistry.create(
          new StreamLimits(1000, 1 << 20, Duration.ofMinutes(5), 5L * EVENT), clock);

  private static SseEvent big() {
    return SseEvent.data("x".repeat(EVENT).getBytes(StandardCharsets.UTF_8));
  }

  private void tick() {
    now.set(now.get().plusSeconds(1));
  }

  @Test
  void forgottenAnswersNeverHoldMoreThanTheTotal() {
    List<StreamBuffer> abandoned = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      StreamBuffer b = registry.open(null);
      b.append(big(), Delivery.NONE); // nobody attached: an answer nobody reads
      abandoned.add(b);
      tick();
      assertThat(registry.keptBytes()).isLessThanOrEqualTo(5L * EVENT + 200);
    }
    assertThat(registry.evictions()).isGreaterThanOrEqualTo(34);
  }

  @Test
  void endedStreamsGoFirstThenUnattendedThenAttached() {
    StreamBufferTest.Client reader = new StreamBufferTest.Client();
    StreamBuffer attached = registry.open(null);
    attached.attach(reader);
    attached.append(big(), Delivery.NONE);
    tick();
    StreamBuffer unattended = registry.open(null);
    unattended.append(big(), Delivery.NONE);
    tick();
    StreamBuffer ended = registry.open(null);
    ended.append(big(), Delivery.NONE);
    ended.end();
    tick();
    StreamBuffer filler = registry.open(null);
    filler.attach(new StreamBufferTest.Client());
    filler.append(big(), Delivery.NONE);
    filler.append(big(), Delivery.NONE); // the fifth event passes the total: one stream goes
    assertThat(registry.evictions()).isEqualTo(1);
    assertThat(ended.resume(0, new StreamBufferTest.Client()))
        .isEqualTo(StreamBuffer.Resume.UNKNOWN);

    filler.append(big(), Delivery.NONE); // and the next one takes the unattended stream
    assertThat(registry.evictions()).isEqualTo(2);
    assertThat(unattended.resume(0, new StreamBufferTest.Client()))
        .isEqualTo(StreamBuffer.Resume.UNKNOWN);
    assertThat(attached.resume(0, new StreamBufferTest.Client()))
        .isEqualTo(StreamBuffer.Resume.RESUMED);
    assertThat(registry.keptBytes()).isLessThanOrEqualTo(5L * EVENT);
  }

  @Test
  void anEvictedLiveStreamStillReachesItsClientAndTellsUndeliveredEvents() {
    StreamBuffer live = registry.open(null);
    StreamBufferTest.Client c = new StreamBufferTest.Client();
    live.attach(c);
    live.append(big(), Delivery.NONE);
    live.evictForBudget();
    List<Boolean> written = new ArrayList<>();
    live.append(big(), written::add);
    assertThat(c.events).hasSize(2);
    assertThat(written).containsExactly(true);
    assertThat(registry.keptBytes()).isZero();
    c.gone = true;
    live.detach(c);
    live.append(big(), written::add);
    assertThat(written).containsExactly(true, false); // completed_not_delivered: kept for replay
    assertThat(live.resume(0, new StreamBufferTest.Client()))
        .isEqualTo(StreamBuffer.Resume.UNKNOWN);
  }
}
