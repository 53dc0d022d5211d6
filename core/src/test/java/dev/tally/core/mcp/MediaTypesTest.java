package dev.tally.core.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class MediaTypesTest {
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
  void listsNeedsTheTypeItselfNotAWildcard() {
    assertThat(MediaTypes.lists("application/json, text/event-stream", MediaTypes.SSE)).isTrue();
    assertThat(MediaTypes.lists("*/*", MediaTypes.SSE)).isFalse();
    assertThat(MediaTypes.lists("text/event-stream;q=0", MediaTypes.SSE)).isFalse();
    assertThat(MediaTypes.acceptsBoth("application/json, text/event-stream")).isTrue();
    assertThat(MediaTypes.acceptsBoth("application/json")).isFalse();
    assertThat(MediaTypes.isJson("application/json; charset=utf-8")).isTrue();
  }
}
