package dev.tally.core.canonical;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.canonical.CanonicalizationException.Code;
import java.util.Objects;

/**
 * RFC 8785 JSON Canonicalization Scheme over Jackson, and the exact-number variant that Tally's
 * fingerprints are computed over. Thread-safe.
 *
 * <p>What is refused, with a {@link CanonicalizationException} naming the code and JSON pointer:
 * duplicate member names, lone surrogates (escaped or UTF-8 encoded), NaN and Infinity, numbers
 * outside the double range (including a non-zero literal such as {@code 1e-400} that would round to
 * zero: RFC 8785 §3.2.2.3 requires values representable as IEEE-754 doubles, and silently turning a
 * non-zero number into 0 would let two different inputs share a fingerprint), numbers with more
 * than 1000 significant digits, nesting deeper than {@link CanonicalLimits#maxDepth()}, documents
 * or canonical forms longer than {@link CanonicalLimits#maxBytes()}, and anything that is not
 * strict UTF-8 JSON (byte order marks, trailing content, comments, invalid UTF-8).
 *
 * <p>Numbers. {@link #canonicalize} is RFC 8785: every number is the IEEE-754 double nearest to it,
 * written as ECMAScript does, so {@code 12345678901234567890} canonicalizes to {@code
 * 12345678901234567000} and {@code 333333333.33333329} to {@code 333333333.3333333}. {@link
 * #canonicalizeExact} differs only in numbers: each keeps its exact decimal value, written in the
 * same ECMAScript layout (digits without trailing zeros; plain for 1e-7 &lt; |v| &lt; 1e21, else
 * {@code d.ddde±n}). The two agree on every number that is the ECMAScript rendering of a double
 * ({@code 1}, {@code 1.0}, {@code 1e0} and {@code -0} still read alike, {@code 0.1} stays {@code
 * 0.1}); for others the exact form keeps the digits ({@code 1234567890123456789}, {@code
 * 12345678901234567.89}), so two numbers share exact canonical bytes if and only if their values
 * are equal. docs/canonical-form.md states the rule.
 *
 * <p>Parsed trees keep exact values: a number that is the rendering of a double becomes {@code
 * IntNode}/{@code LongNode} (integral, up to 2^53 in magnitude) or {@code DoubleNode}, any other a
 * {@code LongNode}, {@code BigIntegerNode} or {@code DecimalNode} holding its exact value.
 *
 * <p>Implementation note: parsing uses Jackson's streaming parser with an explicit container stack,
 * reading a literal's digits only when they may say more than its nearest double; canonical output
 * is written by a per-thread writer into a reused buffer, members sorted by UTF-16 code units
 * (§3.2.3), strings with the minimal escapes of §3.2.2.2, numbers per ECMAScript Number::toString
 * (§3.2.2.3).
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

  /** Parses and canonicalizes UTF-8 JSON per RFC 8785; the result is UTF-8 bytes. */
  public byte[] canonicalize(byte[] json) {
    return canonicalize(parse(json));
  }

  /**
   * Canonicalizes a tree per RFC 8785 (validated the same way as parsed input); the result is UTF-8
   * bytes.
   */
  public byte[] canonicalize(JsonNode node) {
    Objects.requireNonNull(node, "node");
    return CanonicalWriter.canonicalize(node, limits, false);
  }

  /** Parses and canonicalizes UTF-8 JSON keeping exact numbers; the result is UTF-8 bytes. */
  public byte[] canonicalizeExact(byte[] json) {
    return canonicalizeExact(parse(json));
  }

  /**
   * Canonicalizes a tree as {@link #canonicalize(JsonNode)} does, except that every number keeps
   * its exact value (see the class comment); the result is UTF-8 bytes. Integer and decimal nodes
   * keep their value; a double or float node's value is its ECMAScript rendering.
   */
  public byte[] canonicalizeExact(JsonNode node) {
    Objects.requireNonNull(node, "node");
    return CanonicalWriter.canonicalize(node, limits, true);
  }

  /**
   * Checks {@code node} with the rules canonicalization applies (depth, lone surrogates in strings
   * and member names, non-finite and out-of-range numbers, non-JSON nodes) without canonicalizing
   * it, for values that never enter a fingerprint but must be held to the same rules, such as a
   * call's {@code _meta}.
   *
   * @throws CanonicalizationException naming the pointer and the rule, never the value
   */
  public static void validate(JsonNode node, int maxDepth) {
    Objects.requireNonNull(node, "node");
    ValidatingCopy.of(node, maxDepth, "", 0);
  }
}
