package dev.tally.core.config;

import dev.tally.core.canonical.CanonicalLimits;

/**
 * Size and shape limits on untrusted input and stored results.
 *
 * @param maxRequestBytes largest accepted request body (and canonicalized document) in bytes
 * @param maxJsonDepth deepest accepted nesting of arrays and objects (the root counts as 1)
 * @param maxResultBytes largest result kept for replay; larger ones are not retained
 */
public record LimitsConfig(int maxRequestBytes, int maxJsonDepth, int maxResultBytes) {
  public static final int DEFAULT_MAX_REQUEST_BYTES = CanonicalLimits.DEFAULT_MAX_BYTES;
  public static final int DEFAULT_MAX_JSON_DEPTH = CanonicalLimits.DEFAULT_MAX_DEPTH;
  public static final int DEFAULT_MAX_RESULT_BYTES = 1 << 20;

  /** Bounds enforced at start. */
  public static final int MIN_REQUEST_BYTES = 1024;

  public static final int MAX_REQUEST_BYTES = 1 << 30;
  public static final int MAX_JSON_DEPTH = 1000;
  public static final int MAX_RESULT_BYTES = 1 << 30;

  public static final LimitsConfig DEFAULT =
      new LimitsConfig(DEFAULT_MAX_REQUEST_BYTES, DEFAULT_MAX_JSON_DEPTH, DEFAULT_MAX_RESULT_BYTES);

  public LimitsConfig {
    if (maxRequestBytes < MIN_REQUEST_BYTES || maxRequestBytes > MAX_REQUEST_BYTES) {
      throw new IllegalArgumentException("limits.maxRequestBytes: " + maxRequestBytes);
    }
    if (maxJsonDepth < 1 || maxJsonDepth > MAX_JSON_DEPTH) {
      throw new IllegalArgumentException("limits.maxJsonDepth: " + maxJsonDepth);
    }
    if (maxResultBytes < 0 || maxResultBytes > MAX_RESULT_BYTES) {
      throw new IllegalArgumentException("limits.maxResultBytes: " + maxResultBytes);
    }
  }

  /** The limits the canonicalizer applies to tool-call arguments. */
  public CanonicalLimits canonical() {
    return new CanonicalLimits(maxJsonDepth, maxRequestBytes);
  }
}
