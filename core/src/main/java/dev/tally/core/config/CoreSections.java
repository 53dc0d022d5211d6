package dev.tally.core.config;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.actor.ActorConfig;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Pattern;

/**
 * Reads the small core sections. Each reader records its problems and returns the section's default
 * when the section is invalid (the caller throws once everything has been read).
 */
final class CoreSections {
  private static final Pattern ARGUMENT = Pattern.compile("[^\\p{Cntrl}]{1,128}");
  private static final String HEADER_EXPECTED = "an HTTP header name like X-Forwarded-User";

  private CoreSections() {}

  static ActorConfig actor(ConfigSection s) {
    return ActorSection.read(s);
  }

  static IdempotencyConfig idempotency(ConfigSection s) {
    s.allowKeys("argument", "header");
    return new IdempotencyConfig(
        s.string(
            "argument",
            IdempotencyConfig.DEFAULT_ARGUMENT,
            a -> ARGUMENT.matcher(a).matches() && !a.isBlank(),
            "an argument name of 1-128 characters"),
        s.string(
            "header",
            IdempotencyConfig.DEFAULT_HEADER,
            ActorConfig::isHeaderName,
            HEADER_EXPECTED));
  }

  static IntentScopeConfig intentScope(ConfigSection s, IdempotencyConfig idempotency) {
    s.allowKeys("header");
    String header =
        s.string(
            "header", IntentScopeConfig.DEFAULT_HEADER, ActorConfig::isHeaderName, HEADER_EXPECTED);
    if (header.equalsIgnoreCase(idempotency.header())) {
      s.problemShown("header", header, "a header other than idempotency.header");
    }
    return new IntentScopeConfig(header);
  }

  static LimitsConfig limits(ConfigSection s) {
    s.allowKeys("maxRequestBytes", "maxJsonDepth", "maxResultBytes");
    long request =
        s.bytes(
            "maxRequestBytes",
            (long) LimitsConfig.DEFAULT_MAX_REQUEST_BYTES,
            LimitsConfig.MIN_REQUEST_BYTES,
            LimitsConfig.MAX_REQUEST_BYTES);
    int depth =
        s.integer(
            "maxJsonDepth", LimitsConfig.DEFAULT_MAX_JSON_DEPTH, 1, LimitsConfig.MAX_JSON_DEPTH);
    long result =
        s.bytes(
            "maxResultBytes",
            (long) LimitsConfig.DEFAULT_MAX_RESULT_BYTES,
            0,
            LimitsConfig.MAX_RESULT_BYTES);
    return new LimitsConfig((int) request, depth, (int) result);
  }

  static LeaseConfig lease(ConfigSection s) {
    s.allowKeys("duration", "heartbeat");
    Duration duration =
        s.duration(
            "duration", LeaseConfig.DEFAULT_DURATION, Duration.ofSeconds(1), Duration.ofHours(1));
    Duration heartbeat =
        s.duration(
            "heartbeat",
            LeaseConfig.DEFAULT_HEARTBEAT,
            Duration.ofMillis(100),
            Duration.ofHours(1));
    if (heartbeat.compareTo(duration) >= 0) {
      if (s.has("heartbeat")) {
        s.problemShown(
            "heartbeat",
            ConfigValues.formatDuration(heartbeat),
            "shorter than lease.duration " + ConfigValues.formatDuration(duration));
      } else {
        s.problemShown(
            "duration",
            ConfigValues.formatDuration(duration),
            "longer than lease.heartbeat " + ConfigValues.formatDuration(heartbeat));
      }
      return LeaseConfig.DEFAULT;
    }
    return new LeaseConfig(duration, heartbeat);
  }

  static HmacConfig hmac(ConfigSection s) {
    s.allowKeys("keyFile");
    String file = s.string("keyFile", null, CoreSections::isPath, "a file path");
    return file == null ? HmacConfig.DEFAULT : new HmacConfig(Path.of(file));
  }

  /** The {@code journal}, {@code memory} and {@code audit} sections. */
  static StorageConfig storage(ConfigSection journal, ConfigSection memory, ConfigSection audit) {
    StorageConfig d = StorageConfig.DEFAULT;
    journal.allowKeys(
        "compactMinBytes", "compactRatio", "maxGroupDelay", "preallocateBytes", "maxBytes");
    long compactMin =
        journal.bytes("compactMinBytes", d.journalCompactMinBytes(), 0, Long.MAX_VALUE);
    double ratio = d.journalCompactRatio();
    if (journal.has("compactRatio")) {
      JsonNode v = journal.raw("compactRatio");
      double r = Double.NaN;
      try {
        r = v.isNumber() ? v.asDouble() : Double.parseDouble(v.asText().strip());
      } catch (NumberFormatException e) {
        // reported below
      }
      if (r >= 1.0 && !Double.isInfinite(r)) {
        ratio = r;
      } else {
        journal.problem("compactRatio", v, "a number of at least 1");
      }
    }
    Duration delay =
        journal.duration(
            "maxGroupDelay", d.journalMaxGroupDelay(), Duration.ZERO, Duration.ofSeconds(1));
    long prealloc =
        journal.bytes(
            "preallocateBytes",
            d.journalPreallocateBytes(),
            0,
            dev.tally.core.store.journal.JournalOptions.MAX_PREALLOCATE_BYTES);
    long maxBytes = journal.bytes("maxBytes", d.journalMaxBytes(), 0, Long.MAX_VALUE);
    memory.allowKeys("maxBytes");
    long memoryMax = memory.bytes("maxBytes", d.memoryMaxBytes(), 1, Long.MAX_VALUE);
    audit.allowKeys("dir");
    String dir = audit.string("dir", null, CoreSections::isPath, "a directory path");
    return new StorageConfig(
        compactMin, ratio, delay, prealloc, maxBytes, memoryMax, dir == null ? null : Path.of(dir));
  }

  static StoreConfig store(ConfigSection root) {
    if (!root.has("store")) {
      return StoreConfig.DEFAULT;
    }
    JsonNode v = root.raw("store");
    String problem = v.isTextual() ? StoreConfig.problem(v.asText()) : "a string";
    if (problem != null) {
      String shown =
          v.isTextual() ? Problems.sanitize(StoreConfig.redact(v.asText())) : Problems.show("", v);
      root.problemShown("store", shown, problem);
      return StoreConfig.DEFAULT;
    }
    return new StoreConfig(v.asText());
  }

  private static boolean isPath(String s) {
    if (s.isBlank()) {
      return false;
    }
    try {
      Path.of(s);
      return true;
    } catch (InvalidPathException e) {
      return false;
    }
  }
}
