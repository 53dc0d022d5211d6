package dev.tally.sidecar.internal.stream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.core.call.Delivery;
import dev.tally.core.mcp.SseEvent;
import dev.tally.core.mcp.SseParser;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class StreamBufferTest {
  private final AtomicReference<Instant> now =
      new AtomicReference<>(Instant.parse("2026-01-01T00:00:00Z"));
  private final InstantSource clock = () -> now.get();
  private final StreamRegistry registry =
      StreamRegistry.create(new StreamLimits(3, 10_000, Duration.ofMinutes(1)), clock);

  /** A client that parses what it receives. */
  static final class Client implements EventSink {
    final List<SseEvent> events = new ArrayList<>();
    final SseParser parser = SseParser.create(events::add, 64 * 1024);
    boolean ended;
    boolean gone;

    @Override
    public Future<Void> write(Buffer bytes) {
      if (gone) {
        return Future.failedFuture("gone");
      }
      parser.feed(bytes.getBytes());
      return Future.succeededFuture();
    }

    @Override
    public void end() {
      ended = true;
    }

    List<String> data() {
      return events.stream().map(SseEvent::dataString).toList();
    }
  }

  private static SseEvent ev(String s) {
    return SseEvent.data(s.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void eventsGetSequentialSidecarIds() {
    StreamBuffer b = registry.open(null);
    Client c = new Client();
    b.attach(c);
    b.append(ev("a"), Delivery.NONE);
    b.append(ev("b"), Delivery.NONE);
    assertThat(c.events).extracting(SseEvent::id).containsExactly(b.id() + ".1", b.id() + ".2");
  }

  @Test
  void resumeReplaysOnlyWhatFollowedThenContinuesLive() {
    StreamBuffer b = registry.open("s1");
    Client first = new Client();
    b.attach(first);
    b.append(ev("a"), Delivery.NONE);
    first.gone = true;
    b.detach(first);
    b.append(ev("b"), Delivery.NONE);
    b.append(ev("c"), Delivery.NONE);

    Client second = new Client();
    EventId cursor = EventId.parse(first.events.get(0).id());
    assertThat(registry.find(cursor)).isSameAs(b);
    assertThat(b.resume(cursor.seq(), second)).isEqualTo(StreamBuffer.Resume.RESUMED);
    assertThat(second.data()).containsExactly("b", "c");
    b.append(ev("d"), Delivery.NONE);
    assertThat(second.data()).containsExactly("b", "c", "d");
    b.end();
    assertThat(second.ended).isTrue();
  }

  @Test
  void resumeOfAnEndedStreamReplaysAndEnds() {
    StreamBuffer b = registry.open(null);
    b.append(ev("a"), Delivery.NONE);
    b.end();
    Client c = new Client();
    assertThat(b.resume(0, c)).isEqualTo(StreamBuffer.Resume.RESUMED);
    assertThat(c.data()).containsExactly("a");
    assertThat(c.ended).isTrue();
  }

  @Test
  void evictedOrFutureCursorsAreUnknown() {
    StreamBuffer b = registry.open(null);
    for (String s : List.of("a", "b", "c", "d", "e")) {
      b.append(ev(s), Delivery.NONE);
    }
    assertThat(b.size()).isEqualTo(3);
    assertThat(b.resume(1, new Client())).isEqualTo(StreamBuffer.Resume.UNKNOWN);
    assertThat(b.resume(9, new Client())).isEqualTo(StreamBuffer.Resume.UNKNOWN);
    Client ok = new Client();
    assertThat(b.resume(2, ok)).isEqualTo(StreamBuffer.Resume.RESUMED);
    assertThat(ok.data()).containsExactly("c", "d", "e");
  }

  @Test
  void eventsBeyondTheByteBoundEvictTheOldest() {
    StreamBuffer b = registry.open(null); // 3 events, 10,000 bytes
    b.append(ev("x".repeat(3_500)), Delivery.NONE);
    b.append(ev("y".repeat(3_500)), Delivery.NONE);
    assertThat(b.size()).isEqualTo(2);
    b.append(ev("z".repeat(3_500)), Delivery.NONE); // over 10,000 bytes: the oldest goes
    assertThat(b.size()).isEqualTo(2);
    assertThat(b.resume(0, new Client())).isEqualTo(StreamBuffer.Resume.UNKNOWN);
    Client c = new Client();
    assertThat(b.resume(1, c)).isEqualTo(StreamBuffer.Resume.RESUMED);
    assertThat(c.data()).extracting(d -> d.charAt(0)).containsExactly('y', 'z');

    // An event alone over the bound is relayed live but not kept: a cursor before it cannot be
    // resumed (a clear refusal, never a silent gap); a dispatched call's result stays in the store.
    Client live = new Client();
    b.attach(live);
    b.append(ev("w".repeat(20_000)), Delivery.NONE);
    assertThat(live.data()).singleElement().asString().startsWith("w").hasSize(20_000);
    assertThat(b.size()).isZero();
    assertThat(b.resume(3, new Client())).isEqualTo(StreamBuffer.Resume.UNKNOWN);
  }

  @Test
  void eventsOlderThanTheAgeLimitAreDropped() {
    StreamBuffer b = registry.open(null);
    b.append(ev("old"), Delivery.NONE);
    now.set(now.get().plusSeconds(61));
    b.append(ev("new"), Delivery.NONE);
    assertThat(b.resume(0, new Client())).isEqualTo(StreamBuffer.Resume.UNKNOWN);
    Client c = new Client();
    assertThat(b.resume(1, c)).isEqualTo(StreamBuffer.Resume.RESUMED);
    assertThat(c.data()).containsExactly("new");
  }

  @Test
  void deliveryIsReportedFalseThenTrueWhenAResumedClientGetsIt() {
    StreamBuffer b = registry.open(null);
    List<Boolean> outcomes = new ArrayList<>();
    b.append(ev("result"), outcomes::add);
    assertThat(outcomes).containsExactly(false);
    b.resume(0, new Client());
    assertThat(outcomes).containsExactly(false, true);
    b.resume(0, new Client());
    assertThat(outcomes).containsExactly(false, true);
  }

  @Test
  void fullyDeliveredStreamStaysResumableForTheGraceThenIsSwept() {
    StreamBuffer b = registry.open(null);
    b.attach(new Client());
    b.append(ev("a"), Delivery.NONE);
    assertThat(registry.size()).isEqualTo(1);
    b.end();
    // A written event may still have been lost with a dying connection: keep it a little.
    Client late = new Client();
    assertThat(b.resume(0, late)).isEqualTo(StreamBuffer.Resume.RESUMED);
    assertThat(late.data()).containsExactly("a");
    assertThat(registry.sweep()).isZero();
    now.set(now.get().plus(StreamBuffer.CONFIRMED_GRACE).plusSeconds(1));
    assertThat(registry.sweep()).isEqualTo(1);
    assertThat(registry.size()).isZero();
  }

  @Test
  void streamWithUndeliveredEventsIsKeptUntilAResumeDeliversThem() {
    StreamBuffer b = registry.open(null);
    b.append(ev("a"), Delivery.NONE);
    b.end();
    assertThat(registry.find(new EventId(b.id(), 0))).isSameAs(b);
    b.resume(0, new Client());
    assertThat(registry.size()).isEqualTo(1);
    now.set(now.get().plus(StreamBuffer.CONFIRMED_GRACE).plusSeconds(1));
    registry.sweep();
    assertThat(registry.size()).isZero();
  }

  @Test
  void sweepDropsEndedAndAbandonedStreamsAndCancelsTheirUpstream() {
    StreamBuffer ended = registry.open(null);
    ended.append(ev("never delivered"), Delivery.NONE);
    ended.end();
    StreamBuffer abandoned = registry.open(null);
    boolean[] cancelled = {false};
    abandoned.onCancel(() -> cancelled[0] = true);
    StreamBuffer watched = registry.open(null);
    watched.attach(new Client());
    assertThat(registry.sweep()).isZero();
    now.set(now.get().plusSeconds(61));
    assertThat(registry.sweep()).isEqualTo(2);
    assertThat(cancelled[0]).isTrue();
    assertThat(registry.size()).isEqualTo(1);
    assertThat(registry.find(new EventId(ended.id(), 0))).isNull();
  }

  @Test
  void aNewClientReplacesTheOldOne() {
    StreamBuffer b = registry.open(null);
    Client one = new Client();
    b.attach(one);
    Client two = new Client();
    b.resume(0, two);
    assertThat(one.ended).isTrue();
    b.append(ev("x"), Delivery.NONE);
    assertThat(one.events).isEmpty();
    assertThat(two.data()).containsExactly("x");
  }

  @Test
  void reattachSendsWhatNoClientReceivedThenContinuesLive() {
    StreamBuffer b = registry.openStandalone("s1", null);
    Client first = new Client();
    b.attach(first);
    b.append(ev("seen"), Delivery.NONE);
    first.gone = true;
    b.append(ev("lost on the way"), Delivery.NONE);
    b.detach(first);
    b.append(ev("while away"), Delivery.NONE);

    assertThat(registry.standalone("s1")).isSameAs(b);
    Client again = new Client();
    assertThat(b.reattach(again)).isTrue();
    b.append(ev("live"), Delivery.NONE);
    assertThat(again.data()).containsExactly("lost on the way", "while away", "live");
    assertThat(again.events)
        .extracting(SseEvent::id)
        .containsExactly(b.id() + ".2", b.id() + ".3", b.id() + ".4");
  }

  @Test
  void reattachIsRefusedWhileAClientIsAttachedOrOnceTheStreamEnded() {
    StreamBuffer b = registry.openStandalone("s1", null);
    Client attached = new Client();
    b.attach(attached);
    Client other = new Client();
    assertThat(b.reattach(other)).isFalse();
    b.append(ev("x"), Delivery.NONE);
    assertThat(attached.data()).containsExactly("x");
    assertThat(other.events).isEmpty();

    b.detach(attached);
    b.end();
    assertThat(b.reattach(other)).isFalse();
    assertThat(other.ended).isFalse();
  }

  @Test
  void standaloneStreamIsTheSessionsLatestUntilDropped() {
    StreamBuffer old = registry.openStandalone("s1", null);
    StreamBuffer post = registry.open("s1");
    StreamBuffer latest = registry.openStandalone("s1", null);
    assertThat(registry.standalone("s1")).isSameAs(latest).isNotSameAs(post);
    assertThat(registry.standalone("s2")).isNull();
    assertThat(registry.standalone(null)).isNull();

    old.end();
    assertThat(registry.standalone("s1")).isSameAs(latest);
    latest.end();
    assertThat(registry.standalone("s1")).isNull();

    StreamBuffer abandoned = registry.openStandalone("s1", null);
    now.set(now.get().plusSeconds(61));
    registry.sweep();
    assertThat(registry.standalone("s1")).isNull();
    assertThat(registry.find(new EventId(abandoned.id(), 0))).isNull();
  }
}
