package dev.tally.core.config;

import dev.tally.core.canonical.CanonicalLimits;

/**
 * Size and shape limits on untrusted input and stored results.
 *
 * @param maxRequestBytes largest accepted request body in bytes; the canonical action record made
 *     from a body may be {@link #canonicalBytes(int)} long, so that no body within this limit is
 *     refused for the length of its canonical form
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
    return new CanonicalLimits(maxJsonDepth, canonicalBytes(maxRequestBytes));
  }

  /**
   * The longest canonical action record made from a body of at most {@code maxRequestBytes}: twice
   * the body limit plus {@value #CANONICAL_OVERHEAD_BYTES} bytes for the record's own members.
   * Canonical form rarely grows (escapes shrink, whitespace goes), but the record adds the actor,
   * target and scope, and an exponent literal such as {@code 1e20} is written out in full by RFC
   * 8785; a body just under the limit is therefore never refused as too long once canonical.
   */
  public static int canonicalBytes(int maxRequestBytes) {
    return (int) Math.min(Integer.MAX_VALUE - 8, 2L * maxRequestBytes + CANONICAL_OVERHEAD_BYTES);
  }

  /** Room {@link #canonicalBytes(int)} leaves for the record's members beyond the arguments. */
  public static final int CANONICAL_OVERHEAD_BYTES = 64 * 1024;
}
