package dev.tally.core.canonical;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.BigIntegerNode;
import com.fasterxml.jackson.databind.node.DecimalNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.LongNode;
import dev.tally.core.canonical.CanonicalizationException.Code;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;

/**
 * Numbers as the canonicalizer sees them: which are acceptable, and which node a parsed or copied
 * number becomes so that every tree holds each value one way.
 *
 * <p>A number's value is its exact decimal value (a binary floating-point node's value is its
 * ECMAScript rendering). A value that is the ECMAScript rendering of a double becomes what it
 * always became: {@link IntNode} or {@link LongNode} for integers up to 2^53 in magnitude, else
 * {@link DoubleNode}. Any other value (for example {@code 1234567890123456789}, {@code
 * 12345678901234567.89}, {@code 0.1000000000000000000001}) keeps its exact value: a {@link
 * LongNode} or {@link BigIntegerNode} for an integer, else a {@link DecimalNode} without trailing
 * zeros. See docs/canonical-form.md.
 */
final class JsonNumbers {
  static final int OK = 0;
  static final int NON_FINITE = 1;
  static final int TOO_BIG = 2;
  static final int UNDERFLOW = 3;
  static final int TOO_PRECISE = 4;

  /**
   * Most significant digits a number may have: what Jackson's default {@code
   * StreamReadConstraints.maxNumberLength} lets the MCP wire layer read at all, and a bound on the
   * cost of exact arithmetic.
   */
  static final int MAX_DIGITS = 1000;

  /** Integers below 2^1000 and decimals of magnitude in [1e-300, 1e299) are doubles' range. */
  private static final int SURELY_IN_RANGE_BITS = 1000;

  private static final int SURELY_IN_RANGE_EXPONENT = 300;

  /** A value below 2^3321 has at most 1000 digits (3321 * log10(2) &lt; 1000). */
  private static final int MAX_DIGITS_BITS = 3321;

  /** Every decimal of up to 15 digits is the rendering of the normal double it rounds to. */
  private static final int ALWAYS_SHORTEST_DIGITS = 15;

  /** No double needs more than 17 digits. */
  private static final int MAX_SHORTEST_DIGITS = 17;

  private static final double EXACT_INTEGERS = 0x1p53;

  private JsonNumbers() {}

  /**
   * The node for the finite value {@code d}: integral values up to 2^53 in magnitude become {@link
   * IntNode} or {@link LongNode} (so {@code 1.0}, {@code 1} and {@code -0} read alike), others
   * {@link DoubleNode}.
   */
  static JsonNode node(double d) {
    if (Math.abs(d) <= EXACT_INTEGERS && d == Math.rint(d)) {
      long l = (long) d;
      return l == (int) l ? IntNode.valueOf((int) l) : LongNode.valueOf(l);
    }
    return DoubleNode.valueOf(d);
  }

  /** The node for the integer {@code l}. */
  static JsonNode node(long l) {
    if (l >= -(1L << 53) && l <= 1L << 53) {
      return node((double) l);
    }
    return node(BigDecimal.valueOf(l).stripTrailingZeros());
  }

  /**
   * The node for the exact value {@code x} (no trailing zeros in its unscaled value) that lies in
   * the double range.
   */
  static JsonNode node(BigDecimal x) {
    // More digits than any double's rendering: the double is not needed.
    return x.precision() > MAX_SHORTEST_DIGITS ? exactNode(x) : node(x, x.doubleValue());
  }

  /**
   * The node for the exact value {@code x} (no trailing zeros in its unscaled value), whose nearest
   * double {@code d} is finite and, for a non-zero {@code x}, non-zero.
   */
  static JsonNode node(BigDecimal x, double d) {
    return isRenderingOf(x, d) ? node(d) : exactNode(x);
  }

  private static JsonNode exactNode(BigDecimal x) {
    if (x.scale() > 0) {
      return DecimalNode.valueOf(x);
    }
    if (x.precision() - x.scale() <= 18) {
      return LongNode.valueOf(x.longValueExact());
    }
    BigInteger i = x.toBigIntegerExact();
    return i.bitLength() < Long.SIZE ? LongNode.valueOf(i.longValue()) : BigIntegerNode.valueOf(i);
  }

  /** The node a checked number node {@code n} becomes in a copied tree (as {@link Jcs#parse}). */
  static JsonNode copy(JsonNode n) {
    switch (n.numberType()) {
      case INT:
        return IntNode.valueOf(n.intValue());
      case LONG:
        return node(n.longValue());
      case BIG_INTEGER:
      case BIG_DECIMAL:
        return node(n.decimalValue().stripTrailingZeros());
      default:
        return node(n.doubleValue());
    }
  }

  /** Whether {@code x} is the value of the ECMAScript rendering of its nearest double {@code d}. */
  private static boolean isRenderingOf(BigDecimal x, double d) {
    if (d == 0) {
      return true;
    }
    int digits = x.precision();
    if (digits > MAX_SHORTEST_DIGITS) {
      return false;
    }
    if (isRenderingOf(digits, d)) {
      return true;
    }
    ByteSink sink = new ByteSink();
    EsNumberFormat.write(d, sink);
    BigDecimal rendering =
        new BigDecimal(new String(sink.buf, 0, sink.len, StandardCharsets.US_ASCII));
    return rendering.compareTo(x) == 0;
  }

  /**
   * Whether a decimal of {@code digits} significant digits whose nearest double is {@code d} is
   * surely the ECMAScript rendering of {@code d}, without looking at the digits: true for up to 15
   * digits and a normal {@code d} (DBL_DIG: no two decimals of up to 15 digits round to one normal
   * double, and the rendering has no more digits than the decimal, so it is the decimal). False
   * means "not known".
   */
  static boolean isRenderingOf(int digits, double d) {
    return digits <= ALWAYS_SHORTEST_DIGITS && Math.abs(d) >= Double.MIN_NORMAL;
  }

  /** Whether the number node {@code n} is acceptable: {@link #OK} or the problem. */
  static int check(JsonNode n) {
    switch (n.numberType()) {
      case INT:
      case LONG:
        return OK;
      case BIG_INTEGER:
        BigInteger i = n.bigIntegerValue();
        if (i.bitLength() <= SURELY_IN_RANGE_BITS) {
          return OK;
        }
        if (i.bitLength() > MAX_DIGITS_BITS && tooPrecise(new BigDecimal(i))) {
          return TOO_PRECISE;
        }
        return Double.isInfinite(i.doubleValue()) ? TOO_BIG : OK;
      case BIG_DECIMAL:
        BigDecimal b = n.decimalValue();
        if (b.precision() > MAX_DIGITS && tooPrecise(b)) {
          return TOO_PRECISE;
        }
        // The value lies in [10^(e-1), 10^e): well inside the double range for |e| < 300.
        long e = (long) b.precision() - b.scale();
        if (b.signum() == 0 || e > -SURELY_IN_RANGE_EXPONENT && e < SURELY_IN_RANGE_EXPONENT) {
          return OK;
        }
        double d = b.doubleValue();
        if (Double.isInfinite(d)) {
          return TOO_BIG;
        }
        return d == 0 && b.signum() != 0 ? UNDERFLOW : OK;
      default:
        return Double.isFinite(n.doubleValue()) ? OK : NON_FINITE;
    }
  }

  private static boolean tooPrecise(BigDecimal b) {
    return b.stripTrailingZeros().precision() > MAX_DIGITS;
  }

  /** The double nearest to a number node that passed {@link #check}. */
  static double value(JsonNode n) {
    switch (n.numberType()) {
      case BIG_INTEGER:
        return n.bigIntegerValue().doubleValue();
      case BIG_DECIMAL:
        return n.decimalValue().doubleValue();
      case INT:
      case LONG:
        return (double) n.longValue();
      default:
        return n.doubleValue();
    }
  }

  /** The exception for a {@link #check} problem at {@code pointer}. */
  static CanonicalizationException error(int problem, String pointer) {
    switch (problem) {
      case NON_FINITE:
        return new CanonicalizationException(
            Code.NON_FINITE_NUMBER, pointer, "NaN and Infinity are not JSON numbers");
      case UNDERFLOW:
        return new CanonicalizationException(
            Code.NUMBER_OUT_OF_RANGE,
            pointer,
            "non-zero number too small for an IEEE-754 double (it would round to 0)");
      case TOO_PRECISE:
        return new CanonicalizationException(
            Code.NUMBER_OUT_OF_RANGE,
            pointer,
            "number with more than " + MAX_DIGITS + " significant digits");
      default:
        return new CanonicalizationException(
            Code.NUMBER_OUT_OF_RANGE,
            pointer,
            "number outside the IEEE-754 double range (magnitude above 1.7976931348623157e308)");
    }
  }
}
