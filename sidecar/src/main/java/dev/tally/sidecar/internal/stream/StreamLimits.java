package dev.tally.sidecar.internal.stream;

import java.time.Duration;

/**
 * Bounds of one stream's resumption buffer.
 *
 * @param maxEvents events kept per stream
 * @param maxBytes encoded bytes kept per stream
 * @param maxAge how long an event is kept, and how long an ended or unattended stream lives
 */
public record StreamLimits(int maxEvents, long maxBytes, Duration maxAge) {
  public StreamLimits {
    if (maxEvents < 1 || maxBytes < 1 || maxAge.isNegative() || maxAge.isZero()) {
      throw new IllegalArgumentException("stream limits must be positive");
    }
  }
}
