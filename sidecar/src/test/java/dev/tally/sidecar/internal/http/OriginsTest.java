package dev.tally.sidecar.internal.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class OriginsTest {
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
}
