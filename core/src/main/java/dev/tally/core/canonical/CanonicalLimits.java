package dev.tally.core.canonical;

/**
 * Limits applied while parsing and canonicalizing untrusted JSON.
 *
 * @param maxDepth deepest allowed nesting of arrays and objects (the root counts as 1)
 * @param maxBytes largest accepted document in bytes (UTF-8)
 */
public record CanonicalLimits(int maxDepth, int maxBytes) {
  public static final int DEFAULT_MAX_DEPTH = 64;
  public static final int DEFAULT_MAX_BYTES = 4 * 1024 * 1024;
  public static final CanonicalLimits DEFAULT =
      new CanonicalLimits(DEFAULT_MAX_DEPTH, DEFAULT_MAX_BYTES);

  public CanonicalLimits {
    if (maxDepth < 1) {
      throw new IllegalArgumentException("maxDepth: " + maxDepth + " (expected: >= 1)");
    }
    if (maxBytes < 2) {
      throw new IllegalArgumentException("maxBytes: " + maxBytes + " (expected: >= 2)");
    }
  }
}
