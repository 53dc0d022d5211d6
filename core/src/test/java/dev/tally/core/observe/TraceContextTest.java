package dev.tally.core.observe;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class TraceContextTest {
  @Test
  void traceparentKeepsTheTraceAndMintsASpan() {
    String in = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    String out = TraceContext.next(in);
    assertThat(out).startsWith("00-4bf92f3577b34da6a3ce929d0e0e4736-").endsWith("-01");
    assertThat(out).doesNotContain("00f067aa0ba902b7");
    assertThat(TraceContext.next(in.replaceAll("-01$", "-00"))).endsWith("-00");
    // A new trace nobody records is not sampled: no backend will ever hold its spans.
    assertThat(TraceContext.next(null)).matches("00-[0-9a-f]{32}-[0-9a-f]{16}-00");
    assertThat(TraceContext.next("garbage")).matches("00-[0-9a-f]{32}-[0-9a-f]{16}-00");
    assertThat(TraceContext.next("00-00000000000000000000000000000000-00f067aa0ba902b7-01"))
        .doesNotContain("-00000000000000000000000000000000-");
  }

  @Test
  void mintedTraceAndSpanIdsAreDistinctAndUseEveryHexDigitInEveryPlace() {
    java.util.Set<String> traces = new java.util.HashSet<>();
    java.util.Set<String> spans = new java.util.HashSet<>();
    java.util.List<java.util.Set<Character>> digits = new java.util.ArrayList<>();
    for (int i = 0; i < 48; i++) {
      digits.add(new java.util.HashSet<>());
    }
    for (int n = 0; n < 4000; n++) {
      String t = TraceContext.next(null);
      assertThat(t).matches("00-[0-9a-f]{32}-[0-9a-f]{16}-00");
      String ids = t.substring(3, 35) + t.substring(36, 52);
      traces.add(ids.substring(0, 32));
      spans.add(ids.substring(32));
      for (int i = 0; i < 48; i++) {
        digits.get(i).add(ids.charAt(i));
      }
    }
    assertThat(traces).hasSize(4000);
    assertThat(spans).hasSize(4000);
    assertThat(digits).allSatisfy(d -> assertThat(d).hasSize(16));
  }

  @Test
  void anUntracedStepCarriesTheCallersTracestateOnlyWhenItContinuesItsTrace() {
    String in = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    Map<String, String> h = Map.of("traceparent", in, "tracestate", "congo=t61rcWkgMzE");
    RequestSpan.Step step =
        Telemetry.NONE
            .request(new McpOperation("tools/call", "x", null, null, "1"), h::get)
            .step(RequestSpan.StepKind.DISPATCH);
    assertThat(step.traceparent()).startsWith("00-4bf92f3577b34da6a3ce929d0e0e4736-");
    assertThat(step.tracestate()).isEqualTo("congo=t61rcWkgMzE");
    Map<String, String> broken = Map.of("traceparent", "garbage", "tracestate", "congo=1");
    assertThat(
            Telemetry.NONE
                .request(new McpOperation("tools/call", "x", null, null, "1"), broken::get)
                .step(RequestSpan.StepKind.DISPATCH)
                .tracestate())
        .as("a tracestate without a valid traceparent is dropped")
        .isNull();
  }
}
