package dev.tally.core.audit;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;

/** A clock tests move by hand. */
final class MutableClock implements InstantSource {
  private volatile Instant now;

  MutableClock(Instant start) {
    this.now = start;
  }

  @Override
  public Instant instant() {
    return now;
  }

  void advance(Duration d) {
    now = now.plus(d);
  }
}
