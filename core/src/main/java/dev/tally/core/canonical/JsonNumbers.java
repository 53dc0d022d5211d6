package dev.tally.core.canonical;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.LongNode;
import dev.tally.core.canonical.CanonicalizationException.Code;
import java.math.BigDecimal;

/**
 * Numbers as RFC 8785 sees them: IEEE-754 doubles. Decides whether a number node is acceptable and
 * builds the node a parsed or copied number becomes.
 */
final class JsonNumbers {
  static final int OK = 0;
  static final int NON_FINITE = 1;
  static final int TOO_BIG = 2;
  static final int UNDERFLOW = 3;

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

  /** Whether the number node {@code n} has a double value: {@link #OK} or the problem. */
  static int check(JsonNode n) {
    switch (n.numberType()) {
      case INT:
      case LONG:
        return OK;
      case BIG_INTEGER:
        return Double.isInfinite(n.bigIntegerValue().doubleValue()) ? TOO_BIG : OK;
      case BIG_DECIMAL:
        BigDecimal b = n.decimalValue();
        double d = b.doubleValue();
        if (Double.isInfinite(d)) {
          return TOO_BIG;
        }
        return d == 0 && b.signum() != 0 ? UNDERFLOW : OK;
      default:
        return Double.isFinite(n.doubleValue()) ? OK : NON_FINITE;
    }
  }

  /** The double value of a number node that passed {@link #check}. */
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
      default:
        return new CanonicalizationException(
            Code.NUMBER_OUT_OF_RANGE,
            pointer,
            "number outside the IEEE-754 double range (magnitude above 1.7976931348623157e308)");
    }
  }
}
