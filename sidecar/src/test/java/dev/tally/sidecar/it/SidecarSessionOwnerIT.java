package dev.tally.sidecar.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.core.actor.ActorResolvers;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Sessions and their streams are bound to the actor that opened them (issue 22 case 5): knowing an
 * {@code Mcp-Session-Id} and a cursor is not enough to resume another caller's POST stream or to
 * open or re-attach to its standalone stream. Real gate with {@code token_hash} actors, real Java
 * SDK upstream, two raw HTTP clients with their own bearer tokens.
 */
class SidecarSessionOwnerIT {
  static final String ALICE = "Bearer alice-token-0001";
  static final String BOB = "Bearer bob-token-0002";

  private SidecarHarness h;

  @BeforeEach
  void start() throws Exception {
    h = SidecarHarness.real(b -> b, ring -> ActorResolvers.tokenHash("Authorization", ring));
  }

  @AfterEach
  void stop() throws Exception {
    h.close();
  }

  static void refusedAsForeign(HttpResponse<InputStream> r) throws Exception {
    assertThat(r.statusCode()).isEqualTo(403);
    String body = new String(r.body().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(body)
        .contains("FORBIDDEN_SESSION")
        .contains("another caller")
        .doesNotContain("alice-token")
        .doesNotContain("ticket T-");
  }

  @Test
  void anotherCallerCannotResumeAPostStreamEvenWithTheSessionIdAndCursor() throws Exception {
    RawMcp alice = new RawMcp(h.url).as(ALICE).initialize();
    h.upstream.hold = new CountDownLatch(1);
    HttpResponse<InputStream> post =
        alice.postStream(RawMcp.call(9, "create_ticket", "{\"title\":\"mine\"}"));
    assertThat(post.statusCode()).isEqualTo(200);
    String cursor = RawMcp.read(RawMcp.reader(post), 1).get(0).id();
    assertThat(h.upstream.entered.await(10, TimeUnit.SECONDS)).isTrue();
    post.body().close();

    refusedAsForeign(alice.impostor(BOB).resume(cursor));
    refusedAsForeign(alice.impostor(null).resume(cursor));

    HttpResponse<InputStream> mine = alice.resume(cursor);
    assertThat(mine.statusCode()).isEqualTo(200);
    h.upstream.hold.countDown();
    List<RawMcp.Event> rest = RawMcp.read(RawMcp.reader(mine), 10);
    assertThat(rest).hasSize(1);
    assertThat(rest.get(0).data()).contains("ticket T-1 created: mine");
  }

  @Test
  void anotherCallerCannotOpenTheStandaloneStreamOfTheSession() throws Exception {
    RawMcp alice = new RawMcp(h.url).as(ALICE).initialize();
    h.upstream.hold = new CountDownLatch(1);
    HttpResponse<InputStream> post =
        alice.postStream(RawMcp.call(10, "create_ticket", "{\"title\":\"bind\"}"));
    RawMcp.read(RawMcp.reader(post), 1);
    refusedAsForeign(alice.impostor(BOB).standalone());
    h.upstream.hold.countDown();
    post.body().close();
  }
}
