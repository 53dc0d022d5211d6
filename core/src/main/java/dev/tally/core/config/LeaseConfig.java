package dev.tally.core.config;

import java.time.Duration;
import java.util.Objects;

/**
 * How long a dispatched execution's owner holds it without a heartbeat before it becomes {@code
 * outcome_unknown} (ARCHITECTURE.md §5).
 *
 * @param duration lease length
 * @param heartbeat renewal interval, shorter than {@code duration}
 */
public record LeaseConfig(Duration duration, Duration heartbeat) {
  public static final Duration DEFAULT_DURATION = Duration.ofSeconds(30);
  public static final Duration DEFAULT_HEARTBEAT = Duration.ofSeconds(10);
  public static final LeaseConfig DEFAULT = new LeaseConfig(DEFAULT_DURATION, DEFAULT_HEARTBEAT);

  public LeaseConfig {
    Objects.requireNonNull(duration, "duration");
    Objects.requireNonNull(heartbeat, "heartbeat");
    if (heartbeat.compareTo(duration) >= 0) {
      throw new IllegalArgumentException("lease.heartbeat: expected shorter than lease.duration");
    }
  }
}
