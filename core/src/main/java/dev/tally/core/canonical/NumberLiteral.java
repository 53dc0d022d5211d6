package dev.tally.core.canonical;

import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * Reads the exact value of a JSON number literal (RFC 8259 §6 syntax, already checked by the
 * parser) from its characters, in time linear in the literal: only the significant digits are
 * turned into a {@link BigInteger}, so leading and trailing zeros cost nothing.
 */
final class NumberLiteral {
  /** Exponents beyond this are clamped; the caller has refused values outside the double range. */
  private static final long EXPONENT_CLAMP = 1L << 40;

  /** Digits that always fit a long. */
  private static final int LONG_DIGITS = 18;

  private NumberLiteral() {}

  /**
   * The number of significant digits of the literal: from its first to its last non-zero digit
   * before the exponent (0 for a zero). {@code 0.0012300e5} has 3.
   */
  static int significantDigits(char[] c, int off, int len) {
    int first = -1;
    int last = -1;
    int digit = 0;
    for (int i = off, end = off + len; i < end; i++) {
      char ch = c[i];
      if (ch == 'e' || ch == 'E') {
        break;
      }
      if (ch >= '0' && ch <= '9') {
        if (ch != '0') {
          if (first < 0) {
            first = digit;
          }
          last = digit;
        }
        digit++;
      }
    }
    return first < 0 ? 0 : last - first + 1;
  }

  /**
   * The exact value of the literal with no trailing zeros in its unscaled value (as {@link
   * BigDecimal#stripTrailingZeros()} gives it). The literal must lie in the double range, so that
   * the scale fits an int.
   */
  static BigDecimal value(char[] c, int off, int len) {
    int end = off + len;
    int i = off;
    boolean negative = c[i] == '-';
    if (negative || c[i] == '+') {
      i++;
    }
    // The significant digits: in a long while they fit (the common case), else in a builder.
    long small = 0;
    int count = 0;
    StringBuilder big = null;
    int digitCount = 0; // digits of the significand seen so far
    int integerDigits = -1; // digits before the point, once the point or the exponent is reached
    int lastNonZero = -1; // index among the significand's digits
    int pendingZeros = 0; // zeros after the last non-zero digit, not yet taken
    for (; i < end; i++) {
      char ch = c[i];
      if (ch == '.') {
        integerDigits = digitCount;
        continue;
      }
      if (ch == 'e' || ch == 'E') {
        break;
      }
      if (ch == '0') {
        if (count > 0) {
          pendingZeros++;
        }
      } else {
        for (; pendingZeros >= 0; pendingZeros--) {
          int digit = pendingZeros == 0 ? ch - '0' : 0;
          if (big == null && count < LONG_DIGITS) {
            small = small * 10 + digit;
          } else {
            if (big == null) {
              big = new StringBuilder(2 * LONG_DIGITS).append(small);
            }
            big.append((char) ('0' + digit));
          }
          count++;
        }
        pendingZeros = 0;
        lastNonZero = digitCount;
      }
      digitCount++;
    }
    if (integerDigits < 0) {
      integerDigits = digitCount;
    }
    if (lastNonZero < 0) {
      return BigDecimal.ZERO;
    }
    long exponent = i < end ? exponent(c, i + 1, end) : 0;
    // value = digits * 10^(integerDigits - lastNonZero - 1 + exponent)
    int scale = Math.toIntExact(lastNonZero + 1L - integerDigits - exponent);
    if (big == null) {
      return BigDecimal.valueOf(negative ? -small : small, scale);
    }
    BigInteger unscaled = new BigInteger(big.toString());
    return new BigDecimal(negative ? unscaled.negate() : unscaled, scale);
  }

  /** The exponent after {@code e}: an optional sign and digits, clamped to ±2^40. */
  private static long exponent(char[] c, int from, int end) {
    int i = from;
    boolean negative = c[i] == '-';
    if (negative || c[i] == '+') {
      i++;
    }
    long e = 0;
    for (; i < end && e < EXPONENT_CLAMP; i++) {
      e = e * 10 + (c[i] - '0');
    }
    e = Math.min(e, EXPONENT_CLAMP);
    return negative ? -e : e;
  }
}
