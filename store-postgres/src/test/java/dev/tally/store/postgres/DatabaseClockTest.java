package dev.tally.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import org.junit.jupiter.api.Test;

class DatabaseClockTest {
  private static final Instant T = Instant.parse("2026-03-01T09:00:00Z");

  /**
   * A sample sent at {@code T + sentMs}, answered after {@code rttMs}, the database at {@code
   * dbMs}.
   */
  private static DatabaseClock.Sample sample(double sentMs, double rttMs, double dbMs) {
    return new DatabaseClock.Sample(at(sentMs), at(dbMs), at(sentMs + rttMs));
  }

  private static Instant at(double ms) {
    return T.plusNanos(Math.round(ms * 1_000_000));
  }

  @Test
  void aSampleMeasuresTheDatabaseAgainstTheMidpointOfItsRoundTrip() {
    DatabaseClock.Sample s = sample(0, 4, 20_002);

    assertThat(s.roundTrip()).isEqualTo(Duration.ofMillis(4));
    assertThat(s.offset()).isEqualTo(Duration.ofMillis(20_000));
  }

  @Test
  void aReplicaTwentySecondsAheadAdoptsMinusTwentySeconds() {
    DatabaseClock clock = new DatabaseClock();

    DatabaseClock.Reading r = clock.offer(List.of(sample(20_000, 2, 1)));

    assertThat(r.outcome()).isEqualTo(DatabaseClock.Outcome.ADOPTED);
    assertThat(clock.offset()).isEqualTo(Duration.ofMillis(-20_000));
    assertThat(r.uncertainty()).isEqualTo(Duration.ofMillis(1));
    assertThat(r.previous()).isZero();
  }

  @Test
  void theShortestRoundTripOfARoundCounts() {
    DatabaseClock clock = new DatabaseClock();

    clock.offer(List.of(sample(0, 400, 5_000), sample(500, 2, 5_501), sample(1_000, 300, 5_900)));

    assertThat(clock.offset()).isEqualTo(Duration.ofMillis(5_000));
  }

  @Test
  void noiseWithinTheUncertaintyAndTheToleranceNeverMovesTheOffset() {
    DatabaseClock clock = new DatabaseClock();

    // A database 30 ms off, measured within ±1 ms: inside the 50 ms tolerance.
    assertThat(clock.offer(List.of(sample(0, 2, 31))).outcome())
        .isEqualTo(DatabaseClock.Outcome.CONFIRMED);
    assertThat(clock.offset()).isZero();

    clock.offer(List.of(sample(0, 2, 10_001)));
    assertThat(clock.offset()).isEqualTo(Duration.ofMillis(10_000));
    // 10 s + 45 ms, or 10 s + 100 ms measured within ±100 ms: both agree with the offset in use.
    assertThat(clock.offer(List.of(sample(0, 2, 10_046))).outcome())
        .isEqualTo(DatabaseClock.Outcome.CONFIRMED);
    assertThat(clock.offer(List.of(sample(0, 200, 10_200))).outcome())
        .isEqualTo(DatabaseClock.Outcome.CONFIRMED);
    assertThat(clock.offset()).isEqualTo(Duration.ofMillis(10_000));
    // 10 s + 60 ms within ±1 ms does not.
    assertThat(clock.offer(List.of(sample(0, 2, 10_061))).outcome())
        .isEqualTo(DatabaseClock.Outcome.ADOPTED);
    assertThat(clock.offset()).isEqualTo(Duration.ofMillis(10_060));
  }

  @Test
  void theAdoptedOffsetLiesOnTheGridSoReplicasSkewedAlikeAgree() {
    DatabaseClock first = new DatabaseClock();
    DatabaseClock restarted = new DatabaseClock();

    first.offer(List.of(sample(20_000.2, 0.4, 0)));
    restarted.offer(List.of(sample(20_003.7, 1, 0)));

    assertThat(first.offset()).isEqualTo(Duration.ofMillis(-20_000));
    assertThat(restarted.offset()).isEqualTo(first.offset());
    assertThat(DatabaseClock.onGrid(Duration.ofMillis(-20_005).plusNanos(1)))
        .isEqualTo(Duration.ofMillis(-20_000));
    assertThat(DatabaseClock.onGrid(Duration.ofMillis(-20_005).minusNanos(1)))
        .isEqualTo(Duration.ofMillis(-20_010));
    assertThat(DatabaseClock.onGrid(Duration.ofMillis(4_994))).isEqualTo(Duration.ofMillis(4_990));
  }

  @Test
  void roundTripsLongerThanTheBoundDoNotCount() {
    DatabaseClock clock = new DatabaseClock();
    double slow = DatabaseClock.MAX_ROUND_TRIP.toMillis() + 1;

    DatabaseClock.Reading r = clock.offer(List.of(sample(0, slow, 20_000), sample(0, slow, 0)));

    assertThat(r.outcome()).isEqualTo(DatabaseClock.Outcome.UNMEASURED);
    assertThat(r.uncertainty()).isNull();
    assertThat(clock.offset()).isZero();
  }

  @Test
  void aWallClockThatWentBackCountsAsAZeroRoundTrip() {
    DatabaseClock.Sample s = new DatabaseClock.Sample(at(10), at(5_000), at(5));

    assertThat(s.roundTrip()).isZero();
    assertThat(s.offset()).isEqualTo(Duration.ofMillis(4_990));
  }

  @Test
  void deadlinesGoThereAndBackExactlyToTheMicrosecond() {
    DatabaseClock clock = new DatabaseClock();
    clock.offer(List.of(sample(20_000, 0.0036, 1.234_567_8)));
    assertThat(clock.offset()).isEqualTo(Duration.ofMillis(-20_000));
    Instant lease = T.plusNanos(123_456_789);

    OffsetDateTime stored = clock.toDatabase(lease);

    assertThat(stored.toInstant()).isEqualTo(Rows.micros(lease).plus(clock.offset()));
    assertThat(clock.fromDatabase(stored)).isEqualTo(Rows.micros(lease));
    assertThat(clock.toDatabase(null)).isNull();
    assertThat(clock.fromDatabase(null)).isNull();
  }

  @Test
  void twoReplicasOfDifferentClocksWriteOneDeadlineAsOneDatabaseInstant() {
    DatabaseClock inSync = new DatabaseClock();
    inSync.offer(List.of(sample(0, 1, 0.5)));
    DatabaseClock ahead = new DatabaseClock();
    ahead.offer(List.of(sample(20_000, 1, 0.5)));
    Instant onA = T.plusSeconds(30);
    Instant onB = onA.plusSeconds(20); // the same moment on B's clock

    assertThat(ahead.toDatabase(onB)).isEqualTo(inSync.toDatabase(onA));
    assertThat(ahead.fromDatabase(inSync.toDatabase(onA))).isEqualTo(onB);
  }
}
