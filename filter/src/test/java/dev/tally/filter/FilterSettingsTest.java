package dev.tally.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FilterSettingsTest {
  @Test
  void defaultsAreDocumented() {
    FilterSettings s = FilterSettings.defaults();
    assertThat(s.maxRequestBytes()).isEqualTo(FilterSettings.DEFAULT_MAX_REQUEST_BYTES);
    assertThat(s.framing()).isEqualTo(FilterSettings.Framing.AUTO);
    assertThat(s.storeKind()).isEqualTo("memory");
    assertThat(s.keyEnv()).isEqualTo("TALLY_HMAC_KEY");
  }

  @Test
  void initParamsOverrideTheYamlFile(@TempDir Path dir) throws Exception {
    Path yaml = dir.resolve("tally.yaml");
    Files.writeString(
        yaml,
        "filter:\n  maxRequestBytes: 8k\n  framing: json\n  target: billing\nactor:\n  header: X-User\n");
    Map<String, String> params =
        Map.of(FilterSettings.KEY_CONFIG, yaml.toString(), FilterSettings.KEY_FRAMING, "sse");

    FilterSettings s = FilterSettings.fromParameters(params::get);

    assertThat(s.maxRequestBytes()).isEqualTo(8192);
    assertThat(s.framing()).isEqualTo(FilterSettings.Framing.SSE);
    assertThat(s.target()).isEqualTo("billing");
    assertThat(s.actorHeader()).isEqualTo("X-User");
  }

  @Test
  void badValuesNameTheKeyAndWhatWasExpected() {
    assertThatThrownBy(
            () -> FilterSettings.fromParameters(Map.of("filter.maxRequestBytes", "-5")::get))
        .hasMessage("filter.maxRequestBytes: -5 (expected: a positive size up to 2 GiB)");
    assertThatThrownBy(
            () -> FilterSettings.fromParameters(Map.of("filter.maxRequestBytes", "lots")::get))
        .hasMessage(
            "filter.maxRequestBytes: lots (expected: a size in bytes, e.g. 4194304, 4096k or 4m)");
    assertThatThrownBy(() -> FilterSettings.fromParameters(Map.of("filter.framing", "xml")::get))
        .hasMessage("filter.framing: xml (expected: auto, sse or json)");
    assertThatThrownBy(() -> FilterSettings.fromParameters(Map.of("store.kind", "redis")::get))
        .hasMessage("store.kind: redis (expected: memory or journal)");
    assertThatThrownBy(() -> FilterSettings.fromParameters(Map.of("store.kind", "journal")::get))
        .hasMessageStartingWith("store.dir:");
    assertThatThrownBy(
            () -> FilterSettings.fromParameters(Map.of("tally.config", "/nonexistent/t.yaml")::get))
        .hasMessageStartingWith(
            "tally.config: /nonexistent/t.yaml (expected: a readable YAML file");
  }

  @Test
  void keysComeFromTheEnvironmentAndNeverAppearInErrors() {
    String b64 =
        java.util.Base64.getEncoder()
            .encodeToString("k".repeat(32).getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    assertThat(
            Keys.load(FilterSettings.defaults(), Map.of("TALLY_HMAC_KEY", b64)::get).active().id())
        .isEqualTo("k1");
    assertThatThrownBy(() -> Keys.load(FilterSettings.defaults(), k -> null))
        .hasMessageStartingWith("keys.env: TALLY_HMAC_KEY is not set");
    String shortKey =
        java.util.Base64.getEncoder()
            .encodeToString("secret-short".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    assertThatThrownBy(
            () -> Keys.load(FilterSettings.defaults(), Map.of("TALLY_HMAC_KEY", shortKey)::get))
        .message()
        .doesNotContain("secret-short")
        .doesNotContain(shortKey);
  }
}
