package dev.tally.sidecar.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * SSE resumption against an upstream that keeps no event history (the Java SDK servlet transport):
 * the sidecar's own ids and buffer make it work.
 */
class SidecarResumptionIT {
  private SidecarHarness h;

  @BeforeEach
  void start() throws Exception {
    h = SidecarHarness.fake(b -> b);
  }

  @AfterEach
  void stop() throws Exception {
    h.close();
  }

  @Test
  void droppedPostStreamIsResumedWithLastEventIdAndDeliversTheResult() throws Exception {
    RawMcp raw = new RawMcp(h.url).initialize();
    h.upstream.hold = new CountDownLatch(1);
    HttpResponse<InputStream> post =
        raw.postStream(RawMcp.call(9, "create_ticket", "{\"title\":\"r\"}"));
    assertThat(post.statusCode()).isEqualTo(200);
    assertThat(post.headers().firstValue("Content-Type"))
        .hasValueSatisfying(v -> assertThat(v).startsWith("text/event-stream"));
    List<RawMcp.Event> first = RawMcp.read(RawMcp.reader(post), 1);
    String cursor = first.get(0).id();
    assertThat(cursor).matches("[A-Za-z0-9_-]{22}\\.0");
    assertThat(h.upstream.entered.await(10, TimeUnit.SECONDS)).isTrue();
    post.body().close();
    // Release the tool only once the sidecar has seen the client go (in-flight drops to 0).
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (h.sidecar.inFlight() > 0 && System.nanoTime() < deadline) {
      java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
    }
    assertThat(h.sidecar.inFlight()).isZero();

    h.upstream.hold.countDown();
    assertThat(h.gate.firstSettled).succeedsWithin(Duration.ofSeconds(10));
    assertThat(h.gate.reports).contains("completed:200");

    HttpResponse<InputStream> resumed = raw.resume(cursor);
    assertThat(resumed.statusCode()).isEqualTo(200);
    BufferedReader in = RawMcp.reader(resumed);
    List<RawMcp.Event> rest = RawMcp.read(in, 10);
    assertThat(rest).hasSize(1);
    assertThat(rest.get(0).id()).isEqualTo(cursor.substring(0, 22) + ".1");
    assertThat(rest.get(0).data()).contains("\"id\":9").contains("ticket T-1 created: r");
    assertThat(in.readLine()).isNull();
    assertThat(h.upstream.sideEffects).hasValue(1);
    assertThat(h.gate.firstDelivered).succeedsWithin(Duration.ofSeconds(20));
    // Whether (and when) the sidecar notices the dead client (notDelivered) depends on when the
    // kernel reports the reset, possibly after the resume; what must hold is that the resumed
    // client's copy is reported delivered (the gate ignores a later notDelivered on delivered).
    assertThat(h.gate.reports).containsSubsequence("completed:200", "delivered");

    // A written event is no proof of receipt, so for a short grace the last cursor still resumes:
    // nothing after it, and the stream ends at once.
    HttpResponse<InputStream> again = raw.resume(rest.get(0).id());
    assertThat(again.statusCode()).isEqualTo(200);
    assertThat(RawMcp.read(RawMcp.reader(again), 10)).isEmpty();
  }

  @Test
  void resumingALiveStreamContinuesIt() throws Exception {
    RawMcp raw = new RawMcp(h.url).initialize();
    h.upstream.hold = new CountDownLatch(1);
    HttpResponse<InputStream> post =
        raw.postStream(RawMcp.call(11, "create_ticket", "{\"title\":\"live\"}"));
    String cursor = RawMcp.read(RawMcp.reader(post), 1).get(0).id();
    assertThat(h.upstream.entered.await(10, TimeUnit.SECONDS)).isTrue();
    post.body().close();

    HttpResponse<InputStream> resumed = raw.resume(cursor);
    assertThat(resumed.statusCode()).isEqualTo(200);
    h.upstream.hold.countDown();
    List<RawMcp.Event> rest = RawMcp.read(RawMcp.reader(resumed), 10);
    assertThat(rest).hasSize(1);
    assertThat(rest.get(0).data()).contains("ticket T-1 created: live");
  }

  @Test
  void unknownOrForeignLastEventIdIsRefusedPromptly() throws Exception {
    RawMcp raw = new RawMcp(h.url).initialize();
    for (String id : List.of("AAAAAAAAAAAAAAAAAAAAAA.3", "not-ours", raw.session)) {
      HttpResponse<InputStream> r = raw.resume(id);
      assertThat(r.statusCode()).isEqualTo(404);
      String body = new String(r.body().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
      assertThat(body)
          .contains("\"code\":-32600")
          .contains("UNKNOWN_EVENT_ID")
          .contains("Last-Event-ID");
    }
  }

  @Test
  void anotherSessionCannotResumeTheStream() throws Exception {
    RawMcp raw = new RawMcp(h.url).initialize();
    h.upstream.hold = new CountDownLatch(1);
    HttpResponse<InputStream> post =
        raw.postStream(RawMcp.call(12, "create_ticket", "{\"title\":\"s\"}"));
    String cursor = RawMcp.read(RawMcp.reader(post), 1).get(0).id();
    post.body().close();
    RawMcp other = new RawMcp(h.url).initialize();
    assertThat(other.resume(cursor).statusCode()).isEqualTo(404);
    HttpResponse<InputStream> mine = raw.resume(cursor);
    assertThat(mine.statusCode()).isEqualTo(200);
    h.upstream.hold.countDown();
    assertThat(RawMcp.read(RawMcp.reader(mine), 10)).hasSize(1);
  }
}
