package dev.tally.core.config;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The value syntaxes shared by every configuration section: durations ({@code 150us}, {@code
 * 500ms}, {@code 30s}, {@code 10m}, {@code 24h}, {@code 7d} or ISO-8601 {@code PT10M}) and byte
 * sizes ({@code 4194304}, {@code 512KiB}, {@code 4MiB}, {@code 1GiB}; {@code KB}/{@code MB}/{@code
 * GB} are powers of 1000).
 */
public final class ConfigValues {
  private static final Pattern SHORT_DURATION = Pattern.compile("(-?\\d{1,12})(ms|us|s|m|h|d)");
  private static final Pattern SIZE =
      Pattern.compile("(\\d{1,15})\\s*(b|kb|kib|mb|mib|gb|gib)?", Pattern.CASE_INSENSITIVE);

  private ConfigValues() {}

  /**
   * {@code value} as a configuration message may show it: {@code <redacted>} under a key path that
   * looks like a secret ({@code token}, {@code password}, a name ending in {@code key}, ...), cut
   * to a readable length, control characters replaced; mappings and lists are named, not printed.
   * Adapters that validate the file themselves (the sidecar's schema check) use it so their
   * messages follow the same rules as the core's.
   */
  public static String shown(String path, com.fasterxml.jackson.databind.JsonNode value) {
    return Problems.show(path, value);
  }

  /** Parses a duration; empty when {@code text} is neither short nor ISO-8601 syntax. */
  public static Optional<Duration> parseDuration(String text) {
    String s = text.strip();
    Matcher m = SHORT_DURATION.matcher(s);
    if (m.matches()) {
      long n = Long.parseLong(m.group(1));
      return Optional.of(
          switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(n);
            case "us" -> Duration.ofNanos(Math.multiplyExact(n, 1000L));
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            default -> Duration.ofDays(n);
          });
    }
    String upper = s.toUpperCase(Locale.ROOT);
    if (upper.startsWith("P") || upper.startsWith("-P")) {
      try {
        return Optional.of(Duration.parse(upper));
      } catch (DateTimeParseException | ArithmeticException e) {
        return Optional.empty();
      }
    }
    return Optional.empty();
  }

  /** Renders a duration in the short syntax when exact ({@code 10m}), else ISO-8601. */
  public static String formatDuration(Duration d) {
    if (d.isZero()) {
      return "0s";
    }
    long ms = d.toMillis();
    if (!d.equals(Duration.ofMillis(ms))) {
      return d.toString();
    }
    String[] units = {"d", "h", "m", "s"};
    long[] sizes = {86_400_000L, 3_600_000L, 60_000L, 1000L};
    for (int i = 0; i < units.length; i++) {
      if (ms % sizes[i] == 0) {
        return ms / sizes[i] + units[i];
      }
    }
    return ms + "ms";
  }

  /** Parses a byte size; empty when malformed or larger than {@link Long#MAX_VALUE}. */
  public static OptionalLong parseBytes(String text) {
    Matcher m = SIZE.matcher(text.strip());
    if (!m.matches()) {
      return OptionalLong.empty();
    }
    long n = Long.parseLong(m.group(1));
    String unit = m.group(2) == null ? "b" : m.group(2).toLowerCase(Locale.ROOT);
    long factor =
        switch (unit) {
          case "kb" -> 1000L;
          case "kib" -> 1L << 10;
          case "mb" -> 1000L * 1000;
          case "mib" -> 1L << 20;
          case "gb" -> 1000L * 1000 * 1000;
          case "gib" -> 1L << 30;
          default -> 1L;
        };
    try {
      return OptionalLong.of(Math.multiplyExact(n, factor));
    } catch (ArithmeticException e) {
      return OptionalLong.empty();
    }
  }

  /** Renders a byte size in the largest binary unit that divides it ({@code 4MiB}). */
  public static String formatBytes(long bytes) {
    if (bytes != 0 && bytes % (1L << 30) == 0) {
      return bytes / (1L << 30) + "GiB";
    }
    if (bytes != 0 && bytes % (1L << 20) == 0) {
      return bytes / (1L << 20) + "MiB";
    }
    if (bytes != 0 && bytes % (1L << 10) == 0) {
      return bytes / (1L << 10) + "KiB";
    }
    return Long.toString(bytes);
  }
}
