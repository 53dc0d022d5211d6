package dev.tally.sidecar.internal.stream;

import java.time.Duration;

/**
 * Bounds of the resumption buffers: per stream, and of all streams together.
 *
 * @param maxEvents events kept per stream
 * @param maxBytes encoded bytes kept per stream
 * @param maxAge how long an event is kept, and how long an ended or unattended stream lives
 * @param maxTotalBytes encoded bytes all streams may keep together; past it whole streams are
 *     evicted ({@link StreamRegistry})
 */
public record StreamLimits(int maxEvents, long maxBytes, Duration maxAge, long maxTotalBytes) {
  public StreamLimits {
    if (maxEvents < 1
        || maxBytes < 1
        || maxTotalBytes < 1
        || maxAge.isNegative()
        || maxAge.isZero()) {
      throw new IllegalArgumentException("stream limits must be positive");
    }
  }

  /** Per-stream bounds with no total bound. */
  public StreamLimits(int maxEvents, long maxBytes, Duration maxAge) {
    this(maxEvents, maxBytes, maxAge, Long.MAX_VALUE);
  }
}
