package dev.tally.core.canonical;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * RFC 8785 JSON Canonicalization Scheme over Jackson. Thread-safe.
 *
 * <p>STUB: implemented in the canonical work package.
 */
public final class Jcs {
  private final CanonicalLimits limits;

  private Jcs(CanonicalLimits limits) {
    this.limits = limits;
  }

  public static Jcs create(CanonicalLimits limits) {
    return new Jcs(limits);
  }

  public static Jcs create() {
    return create(CanonicalLimits.DEFAULT);
  }

  public CanonicalLimits limits() {
    return limits;
  }

  /** Strictly parses UTF-8 JSON into a tree, applying every check of this class. */
  public JsonNode parse(byte[] json) {
    throw new UnsupportedOperationException("stub");
  }

  /** Parses and canonicalizes UTF-8 JSON; the result is UTF-8 bytes. */
  public byte[] canonicalize(byte[] json) {
    return canonicalize(parse(json));
  }

  /** Canonicalizes a tree (validated the same way as parsed input); the result is UTF-8 bytes. */
  public byte[] canonicalize(JsonNode node) {
    throw new UnsupportedOperationException("stub");
  }
}
