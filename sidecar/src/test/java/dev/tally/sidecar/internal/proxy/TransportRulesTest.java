package dev.tally.sidecar.internal.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.sidecar.internal.http.Origins;
import java.util.List;
import org.junit.jupiter.api.Test;

class TransportRulesTest {
  @Test
  void loopbackOriginsAreAllowedByDefaultOthersNot() {
    Origins o = Origins.of(List.of("https://app.example.com/"), true);
    assertThat(o.allows(null)).isTrue();
    assertThat(o.allows("http://localhost:5173")).isTrue();
    assertThat(o.allows("http://127.0.0.1")).isTrue();
    assertThat(o.allows("http://[::1]:3000")).isTrue();
    assertThat(o.allows("https://app.example.com")).isTrue();
    assertThat(o.allows("https://evil.example")).isFalse();
    assertThat(o.allows("http://localhost.evil.example")).isFalse();
    assertThat(o.allows("null")).isFalse();
    assertThat(Origins.of(List.of(), false).allows("http://localhost")).isFalse();
    assertThat(Origins.of(List.of("*"), false).allows("https://any")).isTrue();
  }

  @Test
  void acceptHandlesWildcardsParametersAndZeroQuality() {
    assertThat(MediaTypes.accepts("application/json, text/event-stream", MediaTypes.SSE)).isTrue();
    assertThat(MediaTypes.accepts("*/*", MediaTypes.JSON)).isTrue();
    assertThat(MediaTypes.accepts("text/*;q=0.5", MediaTypes.SSE)).isTrue();
    assertThat(MediaTypes.accepts("text/event-stream;q=0", MediaTypes.SSE)).isFalse();
    assertThat(MediaTypes.accepts("application/json", MediaTypes.SSE)).isFalse();
    assertThat(MediaTypes.accepts(null, MediaTypes.JSON)).isFalse();
    assertThat(MediaTypes.accepts("  ", MediaTypes.JSON)).isFalse();
    assertThat(MediaTypes.accepts(" TEXT/Event-Stream ; Q=0 ", MediaTypes.SSE)).isFalse();
    assertThat(MediaTypes.accepts("text/plain, Application/* ;level=1", MediaTypes.JSON)).isTrue();
    assertThat(MediaTypes.accepts("application/json;q=0.0, */*;q=0", MediaTypes.JSON)).isFalse();
    assertThat(MediaTypes.accepts("application/json;q=0, application/json", MediaTypes.JSON))
        .isTrue();
    assertThat(MediaTypes.accepts("application/jsonx, text/*x", MediaTypes.JSON)).isFalse();
    assertThat(MediaTypes.accepts("text/event-stream;q=bad", MediaTypes.SSE)).isTrue();
    assertThat(MediaTypes.essence("Application/JSON; charset=utf-8")).isEqualTo("application/json");
  }

  @Test
  void traceparentKeepsTheTraceAndMintsASpan() {
    String in = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    String out = TraceContext.next(in);
    assertThat(out).startsWith("00-4bf92f3577b34da6a3ce929d0e0e4736-").endsWith("-01");
    assertThat(out).doesNotContain("00f067aa0ba902b7");
    assertThat(TraceContext.next(null)).matches("00-[0-9a-f]{32}-[0-9a-f]{16}-01");
    assertThat(TraceContext.next("garbage")).matches("00-[0-9a-f]{32}-[0-9a-f]{16}-01");
    assertThat(TraceContext.next("00-00000000000000000000000000000000-00f067aa0ba902b7-01"))
        .doesNotContain("-00000000000000000000000000000000-");
  }
}
