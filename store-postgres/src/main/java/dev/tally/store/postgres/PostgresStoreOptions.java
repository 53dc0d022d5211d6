package dev.tally.store.postgres;

import java.time.Clock;
import java.time.Duration;
import java.util.Objects;

/**
 * Frozen options of a {@link PostgresExecutionStore} ({@code --store postgres://…}). Start from
 * {@link #defaults(PostgresTarget)} or {@link #fromUrl(String)} and replace what differs with the
 * {@code with…} methods; every value is checked here, and a bad one is refused with a message
 * naming the option ({@code store.postgres.*}).
 *
 * @param target where to connect (its password never shows in {@link #toString()})
 * @param maxResultBytes results larger than this are not stored, only their size (default {@value
 *     #DEFAULT_MAX_RESULT_BYTES}, 1 MiB)
 * @param poolSize connections in the pool for store operations (default {@value
 *     #DEFAULT_POOL_SIZE}); one more connection listens for changes
 * @param connectTimeout how long opening a connection, or waiting for a free one, may take (default
 *     5 s)
 * @param statementTimeout how long one statement may run (default 5 s): the server cancels it then
 *     ({@code statement_timeout}), and an operation with no answer after {@code connectTimeout +
 *     statementTimeout} fails with {@code UNAVAILABLE}
 * @param notifications whether to LISTEN for changes made by other replicas (default true); when
 *     false, or while the listening connection is down, waits poll instead
 * @param pollInterval how often a waiting {@code awaitChange} polls when notifications are off or
 *     down (default 200 ms)
 * @param reconnectInterval how long the listener waits before it reconnects (default 1 s)
 * @param healthInterval how often the store checks the database with {@code SELECT 1} while it has
 *     not seen a recent success, for {@link PostgresExecutionStore#isWritable()} (default 1 s)
 * @param recordCacheSize how many recently written or read records the store remembers so that a
 *     transition needs one round trip instead of two (default {@value #DEFAULT_RECORD_CACHE_SIZE})
 * @param wallClock this replica's real clock, against which the store measures the database's clock
 *     (default the system UTC clock; tests inject a skewed one). It must run in real time, never a
 *     test clock that jumps: leases, holds and retention are compared in database time, the
 *     callers' instants shifted by the measured offset (see {@link DatabaseClock})
 * @param clockInterval how often the offset to the database's clock is measured again (default 30
 *     s)
 * @param clockSkewWarning a WARNING is logged when this replica's clock is further than this from
 *     the database's (default 1 s)
 */
public record PostgresStoreOptions(
    PostgresTarget target,
    int maxResultBytes,
    int poolSize,
    Duration connectTimeout,
    Duration statementTimeout,
    boolean notifications,
    Duration pollInterval,
    Duration reconnectInterval,
    Duration healthInterval,
    int recordCacheSize,
    Clock wallClock,
    Duration clockInterval,
    Duration clockSkewWarning) {

  public static final int DEFAULT_MAX_RESULT_BYTES = 1 << 20;
  public static final int DEFAULT_POOL_SIZE = 8;
  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);
  public static final Duration DEFAULT_STATEMENT_TIMEOUT = Duration.ofSeconds(5);
  public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofMillis(200);
  public static final Duration DEFAULT_RECONNECT_INTERVAL = Duration.ofSeconds(1);
  public static final Duration DEFAULT_HEALTH_INTERVAL = Duration.ofSeconds(1);
  public static final int DEFAULT_RECORD_CACHE_SIZE = 10_000;
  public static final Duration DEFAULT_CLOCK_INTERVAL = Duration.ofSeconds(30);
  public static final Duration DEFAULT_CLOCK_SKEW_WARNING = Duration.ofSeconds(1);

  public PostgresStoreOptions {
    Objects.requireNonNull(target, "store.postgres.target");
    if (maxResultBytes < 0) {
      throw bad("maxResultBytes", maxResultBytes, "zero or more bytes");
    }
    if (poolSize < 1 || poolSize > 1000) {
      throw bad("poolSize", poolSize, "1..1000 connections");
    }
    checkDuration("connectTimeout", connectTimeout, Duration.ofMillis(10), Duration.ofMinutes(5));
    checkDuration(
        "statementTimeout", statementTimeout, Duration.ofMillis(10), Duration.ofMinutes(5));
    checkDuration("pollInterval", pollInterval, Duration.ofMillis(10), Duration.ofMinutes(1));
    checkDuration(
        "reconnectInterval", reconnectInterval, Duration.ofMillis(10), Duration.ofMinutes(5));
    checkDuration("healthInterval", healthInterval, Duration.ofMillis(10), Duration.ofMinutes(5));
    if (recordCacheSize < 0) {
      throw bad("recordCacheSize", recordCacheSize, "zero or more records");
    }
    Objects.requireNonNull(wallClock, "store.postgres.wallClock");
    checkDuration("clockInterval", clockInterval, Duration.ofMillis(10), Duration.ofHours(1));
    checkDuration("clockSkewWarning", clockSkewWarning, Duration.ofMillis(1), Duration.ofHours(1));
  }

  private static void checkDuration(String key, Duration d, Duration min, Duration max) {
    Objects.requireNonNull(d, "store.postgres." + key);
    if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
      throw bad(key, d, "a duration from " + min + " to " + max);
    }
  }

  private static IllegalArgumentException bad(String key, Object value, String expected) {
    return new IllegalArgumentException(
        "store.postgres." + key + ": " + value + " (expected: " + expected + ")");
  }

  /** The defaults for {@code target}. */
  public static PostgresStoreOptions defaults(PostgresTarget target) {
    return new PostgresStoreOptions(
        target,
        DEFAULT_MAX_RESULT_BYTES,
        DEFAULT_POOL_SIZE,
        DEFAULT_CONNECT_TIMEOUT,
        DEFAULT_STATEMENT_TIMEOUT,
        true,
        DEFAULT_POLL_INTERVAL,
        DEFAULT_RECONNECT_INTERVAL,
        DEFAULT_HEALTH_INTERVAL,
        DEFAULT_RECORD_CACHE_SIZE,
        Clock.systemUTC(),
        DEFAULT_CLOCK_INTERVAL,
        DEFAULT_CLOCK_SKEW_WARNING);
  }

  /**
   * The defaults for a {@code postgres://} store URL (see {@link PostgresTarget#parse(String)}).
   */
  public static PostgresStoreOptions fromUrl(String url) {
    PostgresTarget target = PostgresTarget.parse(url);
    PostgresStoreOptions o = defaults(target);
    return target.poolSize() > 0 ? o.withPoolSize(target.poolSize()) : o;
  }

  public PostgresStoreOptions withMaxResultBytes(int bytes) {
    return new PostgresStoreOptions(
        target,
        bytes,
        poolSize,
        connectTimeout,
        statementTimeout,
        notifications,
        pollInterval,
        reconnectInterval,
        healthInterval,
        recordCacheSize,
        wallClock,
        clockInterval,
        clockSkewWarning);
  }

  public PostgresStoreOptions withPoolSize(int size) {
    return new PostgresStoreOptions(
        target,
        maxResultBytes,
        size,
        connectTimeout,
        statementTimeout,
        notifications,
        pollInterval,
        reconnectInterval,
        healthInterval,
        recordCacheSize,
        wallClock,
        clockInterval,
        clockSkewWarning);
  }

  public PostgresStoreOptions withTimeouts(Duration connect, Duration statement) {
    return new PostgresStoreOptions(
        target,
        maxResultBytes,
        poolSize,
        connect,
        statement,
        notifications,
        pollInterval,
        reconnectInterval,
        healthInterval,
        recordCacheSize,
        wallClock,
        clockInterval,
        clockSkewWarning);
  }

  public PostgresStoreOptions withNotifications(boolean enabled) {
    return new PostgresStoreOptions(
        target,
        maxResultBytes,
        poolSize,
        connectTimeout,
        statementTimeout,
        enabled,
        pollInterval,
        reconnectInterval,
        healthInterval,
        recordCacheSize,
        wallClock,
        clockInterval,
        clockSkewWarning);
  }

  public PostgresStoreOptions withIntervals(Duration poll, Duration reconnect, Duration health) {
    return new PostgresStoreOptions(
        target,
        maxResultBytes,
        poolSize,
        connectTimeout,
        statementTimeout,
        notifications,
        poll,
        reconnect,
        health,
        recordCacheSize,
        wallClock,
        clockInterval,
        clockSkewWarning);
  }

  public PostgresStoreOptions withRecordCacheSize(int size) {
    return new PostgresStoreOptions(
        target,
        maxResultBytes,
        poolSize,
        connectTimeout,
        statementTimeout,
        notifications,
        pollInterval,
        reconnectInterval,
        healthInterval,
        size,
        wallClock,
        clockInterval,
        clockSkewWarning);
  }

  /**
   * The wall clock the database's clock is measured against, how often, and when a skew is worth a
   * WARNING.
   */
  public PostgresStoreOptions withClock(Clock wall, Duration interval, Duration skewWarning) {
    return new PostgresStoreOptions(
        target,
        maxResultBytes,
        poolSize,
        connectTimeout,
        statementTimeout,
        notifications,
        pollInterval,
        reconnectInterval,
        healthInterval,
        recordCacheSize,
        wall,
        interval,
        skewWarning);
  }

  /** The same options on another wall clock (see {@link #wallClock()}). */
  public PostgresStoreOptions withWallClock(Clock wall) {
    return withClock(wall, clockInterval, clockSkewWarning);
  }
}
