package dev.tally.sidecar.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.core.store.ExecutionQuery;
import dev.tally.core.store.Page;
import java.net.http.HttpResponse;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A well-formed {@code tools/call} of a read-only tool passes straight through without the gate;
 * everything else still goes through it.
 */
class SidecarReadOnlyFastPathIT {
  private SidecarHarness h;

  @AfterEach
  void stop() throws Exception {
    if (h != null) {
      h.close();
    }
  }

  @Test
  void aReadOnlyCallNeverReachesTheGateAndASideEffectingOneDoes() throws Exception {
    h = SidecarHarness.fake(b -> b);
    RawMcp raw = new RawMcp(h.url).initialize();
    assertThat(raw.post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}").statusCode())
        .isEqualTo(200);

    HttpResponse<String> read = raw.post(RawMcp.call(2, "get_ticket", "{\"id\":\"T-7\"}"));
    assertThat(read.statusCode()).isEqualTo(200);
    assertThat(read.body()).contains("ticket T-7").contains("\"id\":2");
    assertThat(h.gate.admitted).hasValue(0);
    assertThat(h.upstream.readCalls).hasValue(1);
    assertThat(h.upstream.idempotencyKeys).isEmpty();

    HttpResponse<String> write = raw.post(RawMcp.call(3, "create_ticket", "{\"title\":\"x\"}"));
    assertThat(write.statusCode()).isEqualTo(200);
    assertThat(h.gate.admitted).hasValue(1);
    assertThat(h.gate.calls).extracting(c -> c.tool()).containsExactly("create_ticket");
    assertThat(h.upstream.idempotencyKeys).hasSize(1);
  }

  @Test
  void withTheRealGateOnlyTheSideEffectingCallIsRecorded() throws Exception {
    h = SidecarHarness.real(b -> b);
    RawMcp raw = new RawMcp(h.url).initialize();
    raw.post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
    assertThat(raw.post(RawMcp.call(2, "get_ticket", "{\"id\":\"T-8\"}")).body())
        .contains("ticket T-8");
    assertThat(raw.post(RawMcp.call(3, "create_ticket", "{\"title\":\"y\"}")).body())
        .contains("ticket T-1 created: y");
    Page all =
        h.store
            .list(new ExecutionQuery(null, null, null, null, 10))
            .toCompletableFuture()
            .get(5, TimeUnit.SECONDS);
    assertThat(all.items()).extracting(e -> e.tool()).containsExactly("create_ticket");
    assertThat(h.upstream.readCalls).hasValue(1);
    assertThat(h.upstream.sideEffects).hasValue(1);
  }

  @Test
  void aMalformedReadOnlyCallIsRefusedAsBeforeAndNotForwarded() throws Exception {
    h = SidecarHarness.fake(b -> b);
    RawMcp raw = new RawMcp(h.url).initialize();
    raw.post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
    int posts = h.upstream.posts.get();

    HttpResponse<String> badArgs =
        raw.post(
            "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\","
                + "\"params\":{\"name\":\"get_ticket\",\"arguments\":[1]}}");
    assertThat(badArgs.statusCode()).isEqualTo(400);
    assertThat(badArgs.body()).contains("params.arguments: expected an object");

    HttpResponse<String> noId =
        raw.post(
            "{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\","
                + "\"params\":{\"name\":\"get_ticket\",\"arguments\":{}}}");
    assertThat(noId.statusCode()).isEqualTo(400);
    assertThat(noId.body()).contains("id: missing or null");

    HttpResponse<String> badVersion =
        raw.post(
            "{\"jsonrpc\":\"1.0\",\"id\":5,\"method\":\"tools/call\","
                + "\"params\":{\"name\":\"get_ticket\",\"arguments\":{}}}");
    assertThat(badVersion.statusCode()).isEqualTo(400);
    assertThat(h.upstream.posts.get()).isEqualTo(posts);
    assertThat(h.upstream.readCalls).hasValue(0);
  }
}
