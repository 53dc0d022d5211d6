package dev.tally.sidecar.internal.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.MultiMap;
import org.junit.jupiter.api.Test;

class UpstreamTest {
  @Test
  void endToEndHeadersAreCopiedAndHopByHopOnesDroppedWhateverTheirCase() {
    MultiMap client =
        MultiMap.caseInsensitiveMultiMap()
            .add("Content-Type", "application/json")
            .add("Accept", "application/json, text/event-stream")
            .add("mcp-session-id", "s1")
            .add("X-Multi", "a")
            .add("X-Multi", "b")
            .add("HOST", "client.example")
            .add("Content-Length", "42")
            .add("transfer-encoding", "chunked")
            .add("Keep-Alive", "timeout=5")
            .add("TE", "trailers")
            .add("Proxy-Authorization", "Basic c2VjcmV0")
            .add("Upgrade", "h2c");
    MultiMap up = MultiMap.caseInsensitiveMultiMap();
    Upstream.copyEndToEnd(client, up);
    assertThat(up.names())
        .containsExactlyInAnyOrder("Content-Type", "Accept", "mcp-session-id", "X-Multi");
    assertThat(up.getAll("x-multi")).containsExactly("a", "b");
    assertThat(up.get("MCP-SESSION-ID")).isEqualTo("s1");
  }

  @Test
  void headersNamedByConnectionAreHopByHopToo() {
    MultiMap client =
        MultiMap.caseInsensitiveMultiMap()
            .add("Connection", "keep-alive, X-Private ,x-other")
            .add("X-Private", "1")
            .add("X-Other", "2")
            .add("X-Kept", "3");
    MultiMap up = MultiMap.caseInsensitiveMultiMap();
    Upstream.copyEndToEnd(client, up);
    assertThat(up.names()).containsExactly("X-Kept");
  }

  @Test
  void hopByHopNamesAreRecognisedIgnoringCase() {
    assertThat(Upstream.isHopByHop("Transfer-Encoding")).isTrue();
    assertThat(Upstream.isHopByHop("CONNECTION")).isTrue();
    assertThat(Upstream.isHopByHop("content-length")).isTrue();
    assertThat(Upstream.isHopByHop("Content-Type")).isFalse();
    assertThat(Upstream.isHopByHop("Mcp-Session-Id")).isFalse();
  }
}
