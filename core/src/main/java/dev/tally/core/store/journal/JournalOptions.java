package dev.tally.core.store.journal;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Objects;

/**
 * Frozen options of a {@link JournalExecutionStore}. Start from {@link #defaults(Path)} and replace
 * what differs with the {@code with…} methods; every value is checked here, and a bad one is
 * refused with a message naming the option ({@code store.journal.*}).
 *
 * @param dir the journal directory (created if missing); one store at a time may open it
 * @param maxResultBytes results larger than this are not stored (see {@link
 *     dev.tally.core.store.ExecutionStore#maxResultBytes()})
 * @param clock the time used for the transitions written at start ({@code dispatched ->
 *     outcome_unknown})
 * @param compactMinBytes compaction starts only when the journal is larger than this
 * @param compactRatio ... and larger than this many times the estimated size of its live records
 * @param maxGroupRecords at most this many records share one write and one fsync
 * @param maxGroupBytes a group stops growing once its records take this many bytes
 * @param maxGroupDelay how long the writer waits for more records before it writes a group that is
 *     not full; zero (the default) writes at once, and groups still form from the records that
 *     arrive while the previous fsync runs
 * @param preallocateBytes the writer keeps up to this many zero bytes written ahead of its frames
 *     (in the background), so that a group's fsync only flushes data and does not also commit a
 *     grown file size; zero turns it off. A segment's file is up to this much larger than its
 *     records.
 * @param maxBytes the estimated heap that the executions held in memory (every one until its
 *     retention ends) may take; beyond it new calls are refused with {@code UNAVAILABLE} rather
 *     than the heap exhausted; 0 turns the bound off. Default: half the JVM's maximum heap.
 */
public record JournalOptions(
    Path dir,
    int maxResultBytes,
    InstantSource clock,
    long compactMinBytes,
    double compactRatio,
    int maxGroupRecords,
    int maxGroupBytes,
    Duration maxGroupDelay,
    long preallocateBytes,
    long maxBytes) {

  public static final int DEFAULT_MAX_RESULT_BYTES = 1 << 20;
  public static final long DEFAULT_COMPACT_MIN_BYTES = 4L << 20;
  public static final double DEFAULT_COMPACT_RATIO = 2.0;
  public static final int DEFAULT_MAX_GROUP_RECORDS = 1024;
  public static final int DEFAULT_MAX_GROUP_BYTES = 4 << 20;
  public static final Duration DEFAULT_MAX_GROUP_DELAY = Duration.ZERO;
  public static final long DEFAULT_PREALLOCATE_BYTES = 4L << 20;
  public static final long MAX_PREALLOCATE_BYTES = 1L << 30;

  public JournalOptions {
    Objects.requireNonNull(dir, "store.journal.dir");
    Objects.requireNonNull(clock, "store.journal.clock");
    Objects.requireNonNull(maxGroupDelay, "store.journal.maxGroupDelay");
    if (maxResultBytes < 0) {
      throw bad("maxResultBytes", maxResultBytes, "zero or more bytes");
    }
    if (compactMinBytes < 0) {
      throw bad("compactMinBytes", compactMinBytes, "zero or more bytes");
    }
    if (!(compactRatio >= 1.0) || Double.isInfinite(compactRatio)) {
      throw bad("compactRatio", compactRatio, "a finite number of at least 1.0");
    }
    if (maxGroupRecords < 1) {
      throw bad("maxGroupRecords", maxGroupRecords, "at least 1");
    }
    if (maxGroupBytes < 1) {
      throw bad("maxGroupBytes", maxGroupBytes, "at least 1 byte");
    }
    if (maxGroupDelay.isNegative() || maxGroupDelay.compareTo(Duration.ofSeconds(1)) > 0) {
      throw bad("maxGroupDelay", maxGroupDelay, "a duration from 0 to 1s");
    }
    if (maxBytes < 0) {
      throw bad("maxBytes", maxBytes, "0 (no bound) or a positive number of bytes");
    }
    if (preallocateBytes < 0 || preallocateBytes > MAX_PREALLOCATE_BYTES) {
      throw bad(
          "preallocateBytes", preallocateBytes, "0 (off) to " + MAX_PREALLOCATE_BYTES + " bytes");
    }
  }

  private static IllegalArgumentException bad(String key, Object value, String expected) {
    return new IllegalArgumentException(
        "store.journal." + key + ": " + value + " (expected: " + expected + ")");
  }

  /** The defaults for a journal in {@code dir}, on the system clock. */
  public static JournalOptions defaults(Path dir) {
    return new JournalOptions(
        dir,
        DEFAULT_MAX_RESULT_BYTES,
        Clock.systemUTC(),
        DEFAULT_COMPACT_MIN_BYTES,
        DEFAULT_COMPACT_RATIO,
        DEFAULT_MAX_GROUP_RECORDS,
        DEFAULT_MAX_GROUP_BYTES,
        DEFAULT_MAX_GROUP_DELAY,
        DEFAULT_PREALLOCATE_BYTES,
        defaultMaxBytes());
  }

  public JournalOptions withMaxResultBytes(int bytes) {
    Copy c = new Copy(this);
    c.maxResultBytes = bytes;
    return c.build();
  }

  public JournalOptions withClock(InstantSource clock) {
    Copy c = new Copy(this);
    c.clock = clock;
    return c.build();
  }

  /** Compaction runs once the journal exceeds {@code minBytes} and {@code ratio} × live bytes. */
  public JournalOptions withCompaction(long minBytes, double ratio) {
    Copy c = new Copy(this);
    c.compactMinBytes = minBytes;
    c.compactRatio = ratio;
    return c.build();
  }

  public JournalOptions withGroup(int records, int bytes, Duration delay) {
    Copy c = new Copy(this);
    c.maxGroupRecords = records;
    c.maxGroupBytes = bytes;
    c.maxGroupDelay = delay;
    return c.build();
  }

  /** The writer keeps {@code bytes} of zeros allocated ahead of its frames; 0 turns it off. */
  public JournalOptions withPreallocation(long bytes) {
    Copy c = new Copy(this);
    c.preallocateBytes = bytes;
    return c.build();
  }

  /** New calls are refused once the executions in memory take about {@code bytes}; 0: no bound. */
  public JournalOptions withMaxBytes(long bytes) {
    Copy c = new Copy(this);
    c.maxBytes = bytes;
    return c.build();
  }

  /** A mutable copy that a {@code with…} method changes and freezes again (checked then). */
  private static final class Copy {
    private final Path dir;
    private int maxResultBytes;
    private InstantSource clock;
    private long compactMinBytes;
    private double compactRatio;
    private int maxGroupRecords;
    private int maxGroupBytes;
    private Duration maxGroupDelay;
    private long preallocateBytes;
    private long maxBytes;

    Copy(JournalOptions o) {
      dir = o.dir;
      maxResultBytes = o.maxResultBytes;
      clock = o.clock;
      compactMinBytes = o.compactMinBytes;
      compactRatio = o.compactRatio;
      maxGroupRecords = o.maxGroupRecords;
      maxGroupBytes = o.maxGroupBytes;
      maxGroupDelay = o.maxGroupDelay;
      preallocateBytes = o.preallocateBytes;
      maxBytes = o.maxBytes;
    }

    JournalOptions build() {
      return new JournalOptions(
          dir,
          maxResultBytes,
          clock,
          compactMinBytes,
          compactRatio,
          maxGroupRecords,
          maxGroupBytes,
          maxGroupDelay,
          preallocateBytes,
          maxBytes);
    }
  }

  /** Half the JVM's maximum heap ({@code -Xmx}), or 0 (no bound) when the JVM has none. */
  public static long defaultMaxBytes() {
    long max = Runtime.getRuntime().maxMemory();
    return max == Long.MAX_VALUE ? 0 : max / 2;
  }
}
