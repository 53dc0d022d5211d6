package dev.tally.core.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ConfigValuesTest {

  @Test
  void parsesShortDurations() {
    assertThat(ConfigValues.parseDuration("500ms")).contains(Duration.ofMillis(500));
    assertThat(ConfigValues.parseDuration("30s")).contains(Duration.ofSeconds(30));
    assertThat(ConfigValues.parseDuration("10m")).contains(Duration.ofMinutes(10));
    assertThat(ConfigValues.parseDuration("24h")).contains(Duration.ofHours(24));
    assertThat(ConfigValues.parseDuration("7d")).contains(Duration.ofDays(7));
    assertThat(ConfigValues.parseDuration(" 0s ")).contains(Duration.ZERO);
    assertThat(ConfigValues.parseDuration("-5m")).contains(Duration.ofMinutes(-5));
  }

  @Test
  void parsesIsoDurations() {
    assertThat(ConfigValues.parseDuration("PT10M")).contains(Duration.ofMinutes(10));
    assertThat(ConfigValues.parseDuration("pt1h30m")).contains(Duration.ofMinutes(90));
    assertThat(ConfigValues.parseDuration("P2D")).contains(Duration.ofDays(2));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "10", "10 m", "10min", "1h30m", "PT", "P", "m", "1.5s", "PTXM"})
  void rejectsMalformedDurations(String text) {
    assertThat(ConfigValues.parseDuration(text)).isEmpty();
  }

  @Test
  void formatsDurationsInTheLargestExactUnit() {
    assertThat(ConfigValues.formatDuration(Duration.ofMinutes(10))).isEqualTo("10m");
    assertThat(ConfigValues.formatDuration(Duration.ofHours(48))).isEqualTo("2d");
    assertThat(ConfigValues.formatDuration(Duration.ofMillis(1500))).isEqualTo("1500ms");
    assertThat(ConfigValues.formatDuration(Duration.ofSeconds(90))).isEqualTo("90s");
    assertThat(ConfigValues.formatDuration(Duration.ZERO)).isEqualTo("0s");
    assertThat(ConfigValues.formatDuration(Duration.ofNanos(5))).isEqualTo("PT0.000000005S");
  }

  @Test
  void parsesByteSizes() {
    assertThat(ConfigValues.parseBytes("4194304")).hasValue(4194304);
    assertThat(ConfigValues.parseBytes("4MiB")).hasValue(4L << 20);
    assertThat(ConfigValues.parseBytes("512 KiB")).hasValue(512L << 10);
    assertThat(ConfigValues.parseBytes("1GiB")).hasValue(1L << 30);
    assertThat(ConfigValues.parseBytes("4MB")).hasValue(4_000_000);
    assertThat(ConfigValues.parseBytes("2kb")).hasValue(2000);
    assertThat(ConfigValues.parseBytes("10B")).hasValue(10);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "-1", "1.5MiB", "4 TiB", "MiB", "999999999999999GiB"})
  void rejectsMalformedOrOverflowingSizes(String text) {
    assertThat(ConfigValues.parseBytes(text)).isEmpty();
  }

  @Test
  void formatsBytesInBinaryUnits() {
    assertThat(ConfigValues.formatBytes(4L << 20)).isEqualTo("4MiB");
    assertThat(ConfigValues.formatBytes(1024)).isEqualTo("1KiB");
    assertThat(ConfigValues.formatBytes(1000)).isEqualTo("1000");
    assertThat(ConfigValues.formatBytes(0)).isEqualTo("0");
  }
}
