package dev.tally.core.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A clock that moves only when a test moves it; thread-safe. It is also an {@link
 * java.time.InstantSource}, as every {@link Clock} is.
 */
public final class MutableClock extends Clock {
  /** A millisecond-aligned start, so stores that keep microseconds round-trip every instant. */
  public static final Instant DEFAULT_START = Instant.parse("2026-03-01T09:00:00Z");

  private final AtomicReference<Instant> now;
  private final ZoneId zone;

  private MutableClock(AtomicReference<Instant> now, ZoneId zone) {
    this.now = now;
    this.zone = zone;
  }

  /** A clock standing at {@code start}, in UTC. */
  public static MutableClock at(Instant start) {
    return new MutableClock(
        new AtomicReference<>(Objects.requireNonNull(start, "start")), ZoneOffset.UTC);
  }

  /** A clock standing at {@link #DEFAULT_START}. */
  public static MutableClock create() {
    return at(DEFAULT_START);
  }

  /** Moves the clock forward (or back, for a negative amount); returns the new instant. */
  public Instant advance(Duration amount) {
    return now.updateAndGet(t -> t.plus(amount));
  }

  /** Sets the clock to {@code instant}. */
  public void set(Instant instant) {
    now.set(Objects.requireNonNull(instant, "instant"));
  }

  @Override
  public Instant instant() {
    return now.get();
  }

  @Override
  public ZoneId getZone() {
    return zone;
  }

  /** A view in another zone that moves with this clock. */
  @Override
  public Clock withZone(ZoneId newZone) {
    return new MutableClock(now, newZone);
  }

  @Override
  public String toString() {
    return "MutableClock[" + now.get() + "]";
  }
}
