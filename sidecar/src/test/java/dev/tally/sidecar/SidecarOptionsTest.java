package dev.tally.sidecar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import org.junit.jupiter.api.Test;

class SidecarOptionsTest {
  private static final String MARKER = "Mk7-upstream-secret";

  @Test
  void optionsRefuseUserinfoWithoutEchoingItAndNeverShowQuerySecrets() {
    assertThatThrownBy(
            () ->
                SidecarOptions.builder(URI.create("http://bob:" + MARKER + "@127.0.0.1:3000/mcp"))
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("upstream.url: http://<redacted>@127.0.0.1:3000/mcp (expected:")
        .hasMessageContaining("Authorization header")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain(MARKER).doesNotContain("bob"));
    SidecarOptions o =
        SidecarOptions.builder(URI.create("http://127.0.0.1:3000/mcp?token=" + MARKER)).build();
    assertThat(o.upstreamTarget()).isEqualTo("http://127.0.0.1:3000/mcp?token=<redacted>");
    assertThat(o.toString()).doesNotContain(MARKER).contains(o.upstreamTarget());
    assertThat(o.path()).isEqualTo("/mcp");
  }
}
