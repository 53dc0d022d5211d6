package dev.tally.store.postgres;

import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Objects;

/**
 * The database's clock as seen from one store: the offset of PostgreSQL's {@code clock_timestamp()}
 * from the store's wall clock, and the translation by that offset of every deadline the store
 * writes, reads back or compares ({@code lease_expires_at}, {@code hold_until}, {@code
 * retain_until}). The columns hold database time; callers see their own time. Replicas whose clocks
 * disagree therefore compare one another's deadlines on one clock, the database's: a lease written
 * by a replica whose clock is behind does not look lapsed to a replica whose clock is ahead.
 *
 * <p>The translation is a constant shift of the caller's instants (those of the gate's clock), so
 * it keeps their order and distances: a caller that advances an injected clock past a lease still
 * sees the lease lapse. Across replicas what counts is that each caller's clock reads like its
 * store's wall clock; in production both are the system clock.
 *
 * <p>Implementation note: a {@link Sample} brackets the database's reading between two wall-clock
 * readings, so the database read its clock somewhere within the round trip: the offset is database
 * time minus the midpoint, wrong by at most half the round trip (the rule of NTP's offset
 * estimate). Of one round's samples the shortest round trip counts, and only if it took at most
 * {@link #MAX_ROUND_TRIP}. The offset in use starts at zero and moves to a measurement only when
 * the two differ by more than that measurement's uncertainty plus {@link #TOLERANCE}: noise never
 * moves it, so a store reads back exactly the instants it wrote, and replicas whose clocks agree
 * with the database store exactly the instants they are given. The offset is kept in whole
 * microseconds, as the columns are, so translating there and back is exact.
 */
final class DatabaseClock {
  /** The longest round trip a sample may take to count (its uncertainty is half of it). */
  static final Duration MAX_ROUND_TRIP = Duration.ofMillis(500);

  /**
   * How far a measurement must be off the offset in use, beyond its own uncertainty, to move it.
   */
  static final Duration TOLERANCE = Duration.ofMillis(50);

  /** The grid the adopted offset is rounded to. */
  static final Duration STEP = Duration.ofMillis(10);

  /** What one round of samples did to the offset. */
  enum Outcome {
    /** The offset moved to the measurement. */
    ADOPTED,
    /** The measurement agrees with the offset in use, within its uncertainty plus the tolerance. */
    CONFIRMED,
    /** No sample came back within {@link #MAX_ROUND_TRIP}; the offset stays. */
    UNMEASURED
  }

  /**
   * One reading of the database's clock.
   *
   * @param sent the wall clock just before the statement went out
   * @param database what {@code clock_timestamp()} returned
   * @param received the wall clock when the answer arrived
   */
  record Sample(Instant sent, Instant database, Instant received) {
    Sample {
      Objects.requireNonNull(sent, "sent");
      Objects.requireNonNull(database, "database");
      Objects.requireNonNull(received, "received");
    }

    /** How long the statement took on the wall clock (zero if the wall clock went back). */
    Duration roundTrip() {
      Duration d = Duration.between(sent, received);
      return d.isNegative() ? Duration.ZERO : d;
    }

    /** Database time minus the wall clock at the midpoint of the round trip. */
    Duration offset() {
      return Duration.between(sent.plus(roundTrip().dividedBy(2)), database);
    }
  }

  /**
   * The result of one round.
   *
   * @param outcome what happened to the offset
   * @param offset the offset in use afterwards
   * @param previous the offset in use before
   * @param uncertainty half the round trip of the sample that counted ({@code null} if none did)
   */
  record Reading(Outcome outcome, Duration offset, Duration previous, Duration uncertainty) {}

  private volatile Duration offset = Duration.ZERO;

  /**
   * Database time minus this store's wall clock, a multiple of {@link #STEP} (zero until measured).
   */
  Duration offset() {
    return offset;
  }

  /** {@code at} (the caller's time) in database time, to the microsecond; null stays null. */
  OffsetDateTime toDatabase(Instant at) {
    return at == null ? null : Rows.time(Rows.micros(at).plus(offset));
  }

  /** {@code at} (database time) in the caller's time; null stays null. */
  Instant fromDatabase(OffsetDateTime at) {
    return at == null ? null : at.toInstant().minus(offset);
  }

  /** Takes one round's samples into account (see the class comment). */
  synchronized Reading offer(List<Sample> samples) {
    Duration before = offset;
    Sample best = null;
    for (Sample s : samples) {
      if (s.roundTrip().compareTo(MAX_ROUND_TRIP) <= 0
          && (best == null || s.roundTrip().compareTo(best.roundTrip()) < 0)) {
        best = s;
      }
    }
    if (best == null) {
      return new Reading(Outcome.UNMEASURED, before, before, null);
    }
    Duration uncertainty = best.roundTrip().dividedBy(2);
    Duration measured = best.offset();
    if (measured.minus(before).abs().compareTo(uncertainty.plus(TOLERANCE)) <= 0) {
      return new Reading(Outcome.CONFIRMED, before, before, uncertainty);
    }
    Duration adopted = onGrid(measured);
    offset = adopted;
    return new Reading(Outcome.ADOPTED, adopted, before, uncertainty);
  }

  /** {@code d} rounded to the nearest multiple of {@link #STEP}. */
  static Duration onGrid(Duration d) {
    long step = STEP.toNanos();
    return Duration.ofNanos(Math.floorDiv(d.toNanos() + step / 2, step) * step);
  }
}
