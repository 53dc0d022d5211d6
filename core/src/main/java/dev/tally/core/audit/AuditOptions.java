package dev.tally.core.audit;

import dev.tally.core.config.UrlRedaction;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Objects;

/**
 * Immutable settings of {@link AuditJournals}. Start from {@link #defaults()} and change fields
 * with the {@code with…} methods; every value is validated when set.
 *
 * @param checkpointEvery sign a checkpoint after this many entries (default {@value
 *     #DEFAULT_CHECKPOINT_EVERY})
 * @param checkpointInterval sign a checkpoint once the oldest unsigned entry is this old (default
 *     {@link #DEFAULT_CHECKPOINT_INTERVAL}); checked on append and by {@link
 *     AuditJournals#checkpointIfDue()}
 * @param sessionUpdateInterval a session already recorded gets a new {@code updated} entry when it
 *     is seen this long after its last entry (default {@link #DEFAULT_SESSION_UPDATE_INTERVAL}); a
 *     change of actor or client information is recorded at once
 * @param sessionCacheSize how many sessions are remembered to tell a first sighting from a later
 *     one (default {@value #DEFAULT_SESSION_CACHE_SIZE}); a forgotten session is recorded again as
 *     {@code first_seen}
 * @param maxPendingBytes appended bytes not yet written above which a background thread flushes the
 *     journal (default {@value #DEFAULT_MAX_PENDING_BYTES}; at four times as many the appending
 *     thread flushes itself); normally the store's group commit or the periodic flush drains them
 *     long before
 * @param target the upstream identity written to activity entries (the sidecar's upstream, the
 *     filter's application), or {@code null}; a URL is kept without userinfo, fragment and
 *     credential-looking query values ({@link UrlRedaction#ofTarget}), since whatever enters the
 *     chain stays there
 * @param clock the time source for checkpoints and creation entries without a state time
 * @param canonicalizer RFC 8785 canonical JSON, used to check a journal's chain when it is opened
 *     and for an entry the writer's own flat canonical form does not cover (a lone surrogate, an
 *     integer beyond 2<sup>53</sup>−1; Tally's entries hold neither); {@link Canonicalizer#jcs()}
 *     in production
 */
public record AuditOptions(
    int checkpointEvery,
    Duration checkpointInterval,
    Duration sessionUpdateInterval,
    int sessionCacheSize,
    int maxPendingBytes,
    String target,
    InstantSource clock,
    Canonicalizer canonicalizer) {

  public static final int DEFAULT_CHECKPOINT_EVERY = 1000;
  public static final Duration DEFAULT_CHECKPOINT_INTERVAL = Duration.ofSeconds(60);
  public static final Duration DEFAULT_SESSION_UPDATE_INTERVAL = Duration.ofMinutes(5);
  public static final int DEFAULT_SESSION_CACHE_SIZE = 10_000;
  public static final int DEFAULT_MAX_PENDING_BYTES = 1 << 20;
  static final int MAX_TARGET_CHARS = 512;

  public AuditOptions {
    if (checkpointEvery < 1) {
      throw new IllegalArgumentException(
          "audit.checkpointEvery: "
              + checkpointEvery
              + " (expected: a positive number of entries)");
    }
    requirePositive(checkpointInterval, "audit.checkpointInterval");
    requirePositive(sessionUpdateInterval, "audit.sessionUpdateInterval");
    if (sessionCacheSize < 1) {
      throw new IllegalArgumentException(
          "audit.sessionCacheSize: " + sessionCacheSize + " (expected: a positive number)");
    }
    if (maxPendingBytes < 1) {
      throw new IllegalArgumentException(
          "audit.maxPendingBytes: " + maxPendingBytes + " (expected: a positive number of bytes)");
    }
    target = Text.clean(UrlRedaction.ofTarget(target), MAX_TARGET_CHARS);
    Objects.requireNonNull(clock, "clock");
    Objects.requireNonNull(canonicalizer, "canonicalizer");
  }

  private static void requirePositive(Duration d, String key) {
    Objects.requireNonNull(d, key);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(key + ": " + d + " (expected: a positive duration)");
    }
  }

  /** The defaults: system clock, {@link Canonicalizer#jcs()}, no target. */
  public static AuditOptions defaults() {
    return new AuditOptions(
        DEFAULT_CHECKPOINT_EVERY,
        DEFAULT_CHECKPOINT_INTERVAL,
        DEFAULT_SESSION_UPDATE_INTERVAL,
        DEFAULT_SESSION_CACHE_SIZE,
        DEFAULT_MAX_PENDING_BYTES,
        null,
        InstantSource.system(),
        Canonicalizer.jcs());
  }

  public AuditOptions withCheckpointEvery(int entries) {
    return new AuditOptions(
        entries,
        checkpointInterval,
        sessionUpdateInterval,
        sessionCacheSize,
        maxPendingBytes,
        target,
        clock,
        canonicalizer);
  }

  public AuditOptions withCheckpointInterval(Duration interval) {
    return new AuditOptions(
        checkpointEvery,
        interval,
        sessionUpdateInterval,
        sessionCacheSize,
        maxPendingBytes,
        target,
        clock,
        canonicalizer);
  }

  public AuditOptions withSessionUpdateInterval(Duration interval) {
    return new AuditOptions(
        checkpointEvery,
        checkpointInterval,
        interval,
        sessionCacheSize,
        maxPendingBytes,
        target,
        clock,
        canonicalizer);
  }

  public AuditOptions withSessionCacheSize(int size) {
    return new AuditOptions(
        checkpointEvery,
        checkpointInterval,
        sessionUpdateInterval,
        size,
        maxPendingBytes,
        target,
        clock,
        canonicalizer);
  }

  public AuditOptions withMaxPendingBytes(int bytes) {
    return new AuditOptions(
        checkpointEvery,
        checkpointInterval,
        sessionUpdateInterval,
        sessionCacheSize,
        bytes,
        target,
        clock,
        canonicalizer);
  }

  public AuditOptions withTarget(String newTarget) {
    return new AuditOptions(
        checkpointEvery,
        checkpointInterval,
        sessionUpdateInterval,
        sessionCacheSize,
        maxPendingBytes,
        newTarget,
        clock,
        canonicalizer);
  }

  public AuditOptions withClock(InstantSource newClock) {
    return new AuditOptions(
        checkpointEvery,
        checkpointInterval,
        sessionUpdateInterval,
        sessionCacheSize,
        maxPendingBytes,
        target,
        newClock,
        canonicalizer);
  }

  public AuditOptions withCanonicalizer(Canonicalizer c) {
    return new AuditOptions(
        checkpointEvery,
        checkpointInterval,
        sessionUpdateInterval,
        sessionCacheSize,
        maxPendingBytes,
        target,
        clock,
        c);
  }
}
