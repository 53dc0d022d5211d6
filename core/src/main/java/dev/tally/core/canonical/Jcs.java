package dev.tally.core.canonical;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.canonical.CanonicalizationException.Code;
import java.util.Objects;

/**
 * RFC 8785 JSON Canonicalization Scheme over Jackson. Thread-safe.
 *
 * <p>What is refused, with a {@link CanonicalizationException} naming the code and JSON pointer:
 * duplicate member names, lone surrogates (escaped or UTF-8 encoded), NaN and Infinity, numbers
 * outside the double range (including a non-zero literal such as {@code 1e-400} that would round to
 * zero: RFC 8785 §3.2.2.3 requires values representable as IEEE-754 doubles, and silently turning a
 * non-zero number into 0 would let two different inputs share a fingerprint), nesting deeper than
 * {@link CanonicalLimits#maxDepth()}, documents or canonical forms longer than {@link
 * CanonicalLimits#maxBytes()}, and anything that is not strict UTF-8 JSON (byte order marks,
 * trailing content, comments, invalid UTF-8).
 *
 * <p>Numbers are IEEE-754 doubles throughout, as in RFC 8785: {@code 12345678901234567890}
 * canonicalizes to {@code 12345678901234567000}. In parsed trees, integral values up to 2^53 in
 * magnitude are {@code IntNode}/{@code LongNode} (so {@code 1}, {@code 1.0} and {@code -0} read
 * alike) and all others {@code DoubleNode}.
 *
 * <p>Implementation note: parsing uses Jackson's streaming parser with an explicit container stack;
 * canonical output is written by a per-thread writer into a reused buffer, members sorted by UTF-16
 * code units (§3.2.3), strings with the minimal escapes of §3.2.2.2, numbers per ECMAScript
 * Number::toString (§3.2.2.3).
 */
public final class Jcs {
  private final CanonicalLimits limits;
  private final StrictTreeReader reader;

  private Jcs(CanonicalLimits limits) {
    this.limits = limits;
    this.reader = new StrictTreeReader(limits);
  }

  public static Jcs create(CanonicalLimits limits) {
    return new Jcs(Objects.requireNonNull(limits, "limits"));
  }

  public static Jcs create() {
    return create(CanonicalLimits.DEFAULT);
  }

  public CanonicalLimits limits() {
    return limits;
  }

  /** Strictly parses UTF-8 JSON into a tree, applying every check of this class. */
  public JsonNode parse(byte[] json) {
    Objects.requireNonNull(json, "json");
    if (json.length > limits.maxBytes()) {
      throw new CanonicalizationException(
          Code.TOO_LARGE,
          "",
          "document is " + json.length + " bytes (limit: " + limits.maxBytes() + " bytes)");
    }
    return reader.read(json);
  }

  /** Parses and canonicalizes UTF-8 JSON; the result is UTF-8 bytes. */
  public byte[] canonicalize(byte[] json) {
    return canonicalize(parse(json));
  }

  /** Canonicalizes a tree (validated the same way as parsed input); the result is UTF-8 bytes. */
  public byte[] canonicalize(JsonNode node) {
    Objects.requireNonNull(node, "node");
    return CanonicalWriter.canonicalize(node, limits);
  }
}
