package dev.tally.sidecar.app;

import dev.tally.core.config.ConfigException;
import dev.tally.core.config.StoreConfig;
import dev.tally.core.store.ExecutionStore;
import dev.tally.core.store.MemoryExecutionStore;
import dev.tally.core.store.MemoryStoreOptions;
import dev.tally.core.store.journal.JournalExecutionStore;
import dev.tally.core.store.journal.JournalOptions;
import dev.tally.core.store.journal.RiderSink;
import dev.tally.store.postgres.PostgresExecutionStore;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

/**
 * Opens the execution store a {@link StoreConfig} names.
 *
 * <p>Six JVM system properties tune the journal; they are a hook for crash tests and diagnosis, not
 * configuration (a bad value refuses the start like a bad key): {@value
 * #COMPACT_MIN_BYTES_PROPERTY} (default {@link JournalOptions#DEFAULT_COMPACT_MIN_BYTES}), {@value
 * #COMPACT_RATIO_PROPERTY} (default {@link JournalOptions#DEFAULT_COMPACT_RATIO}) and {@value
 * #GROUP_DELAY_PROPERTY} (milliseconds, 0–1000, default 0: {@link JournalOptions#maxGroupDelay()};
 * or {@value #GROUP_DELAY_MICROS_PROPERTY} in microseconds, 0–1000000) and {@value
 * #PREALLOCATE_BYTES_PROPERTY} (default {@link JournalOptions#DEFAULT_PREALLOCATE_BYTES}, 0 turns
 * it off: {@link JournalOptions#preallocateBytes()}) and {@value #JOURNAL_MAX_BYTES_PROPERTY}
 * (default half the maximum heap: {@link JournalOptions#maxBytes()}). For example {@code java
 * -Dtally.journal.compactMinBytes=0 -Dtally.journal.compactRatio=1 -jar tally-sidecar.jar serve
 * ...} compacts after almost every write.
 */
public final class Stores {
  /** How long start-up waits for PostgreSQL (connect and migrate). */
  static final Duration OPEN_TIMEOUT = Duration.ofSeconds(60);

  /** System property: journal compaction starts only above this many bytes of log. */
  public static final String COMPACT_MIN_BYTES_PROPERTY = "tally.journal.compactMinBytes";

  /** System property: ... and only when the log is this many times its live records. */
  public static final String COMPACT_RATIO_PROPERTY = "tally.journal.compactRatio";

  /**
   * System property: the memory store's bound on the estimated heap its records and results take,
   * in bytes (default 256 MiB); a full store evicts delivered and released records first and
   * refuses new calls only when in-flight and key-holding records alone fill it.
   */
  public static final String MEMORY_MAX_BYTES_PROPERTY = "tally.memory.maxBytes";

  /**
   * System property: the estimated heap the journal store's executions may take before new calls
   * are refused (default half the maximum heap; 0: no bound).
   */
  public static final String JOURNAL_MAX_BYTES_PROPERTY = "tally.journal.maxBytes";

  /** System property: bytes of zeros the journal writer keeps allocated ahead of its records. */
  public static final String PREALLOCATE_BYTES_PROPERTY = "tally.journal.preallocateBytes";

  /** System property: milliseconds the journal writer waits to fill a group before it writes. */
  public static final String GROUP_DELAY_PROPERTY = "tally.journal.maxGroupDelayMillis";

  /** System property: the same in microseconds (finer, for measurements); not with the other. */
  public static final String GROUP_DELAY_MICROS_PROPERTY = "tally.journal.maxGroupDelayMicros";

  private Stores() {}

  /**
   * Opens the store; throws the store's own exception (with a clear message, never a password) when
   * it cannot start, e.g. a locked journal or an unreachable database.
   */
  public static ExecutionStore open(StoreConfig config, int maxResultBytes, Clock clock) {
    return open(config, maxResultBytes, clock, null);
  }

  /**
   * Opens the store; a journal store hands {@code riders} (if not null) the audit entries its
   * segments still carry while it recovers (see {@link JournalExecutionStore#open(JournalOptions,
   * RiderSink)}).
   */
  public static ExecutionStore open(
      StoreConfig config, int maxResultBytes, Clock clock, RiderSink riders) {
    return switch (config.kind()) {
      case MEMORY ->
          MemoryExecutionStore.create(
              MemoryStoreOptions.defaults()
                  .withMaxResultBytes(maxResultBytes)
                  .withMaxWeightBytes(memoryMaxBytes()));
      case JOURNAL -> {
        JournalOptions d = JournalOptions.defaults(config.journalDir());
        JournalOptions options =
            new JournalOptions(
                    d.dir(),
                    maxResultBytes,
                    clock,
                    d.compactMinBytes(),
                    d.compactRatio(),
                    d.maxGroupRecords(),
                    d.maxGroupBytes(),
                    groupDelay(d.maxGroupDelay()),
                    property(
                        PREALLOCATE_BYTES_PROPERTY,
                        d.preallocateBytes(),
                        JournalOptions.MAX_PREALLOCATE_BYTES,
                        "0 (off) to " + JournalOptions.MAX_PREALLOCATE_BYTES + " bytes"),
                    property(
                        JOURNAL_MAX_BYTES_PROPERTY,
                        d.maxBytes(),
                        Long.MAX_VALUE,
                        "0 (no bound) or a positive number of bytes"))
                .withCompaction(
                    property(
                        COMPACT_MIN_BYTES_PROPERTY,
                        d.compactMinBytes(),
                        Long.MAX_VALUE,
                        "zero or more bytes"),
                    property(COMPACT_RATIO_PROPERTY, d.compactRatio(), "a number of at least 1"));
        yield riders == null
            ? JournalExecutionStore.open(options)
            : JournalExecutionStore.open(options, riders);
      }
      case POSTGRES ->
          PostgresExecutionStore.openBlocking(config.uri(), maxResultBytes, OPEN_TIMEOUT);
    };
  }

  private static long memoryMaxBytes() {
    String expected = "a positive number of bytes";
    long n =
        property(
            MEMORY_MAX_BYTES_PROPERTY,
            MemoryStoreOptions.DEFAULT_MAX_WEIGHT_BYTES,
            Long.MAX_VALUE,
            expected);
    if (n == 0) {
      throw badProperty(MEMORY_MAX_BYTES_PROPERTY, "0", expected);
    }
    return n;
  }

  private static Duration groupDelay(Duration def) {
    String millis = System.getProperty(GROUP_DELAY_PROPERTY);
    String micros = System.getProperty(GROUP_DELAY_MICROS_PROPERTY);
    if (millis != null && !millis.isBlank() && micros != null && !micros.isBlank()) {
      throw badProperty(
          GROUP_DELAY_MICROS_PROPERTY, micros, "not together with -D" + GROUP_DELAY_PROPERTY);
    }
    if (micros != null && !micros.isBlank()) {
      return Duration.ofNanos(
          1000
              * property(
                  GROUP_DELAY_MICROS_PROPERTY, 0, 1_000_000, "microseconds from 0 to 1000000"));
    }
    return Duration.ofMillis(
        property(GROUP_DELAY_PROPERTY, def.toMillis(), 1000, "milliseconds from 0 to 1000"));
  }

  private static long property(String name, long def, long max, String expected) {
    String v = System.getProperty(name);
    if (v == null || v.isBlank()) {
      return def;
    }
    try {
      long n = Long.parseLong(v.strip());
      if (n >= 0 && n <= max) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw badProperty(name, v, expected);
  }

  private static double property(String name, double def, String expected) {
    String v = System.getProperty(name);
    if (v == null || v.isBlank()) {
      return def;
    }
    try {
      double n = Double.parseDouble(v.strip());
      if (n >= 1.0 && !Double.isInfinite(n)) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw badProperty(name, v, expected);
  }

  private static ConfigException badProperty(String name, String value, String expected) {
    String shown = value.length() > 40 ? value.substring(0, 40) + "…" : value;
    return new ConfigException(
        "configuration", List.of("-D" + name + ": " + shown + " (expected: " + expected + ")"));
  }
}
