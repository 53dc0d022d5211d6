package dev.tally.core.canonical;

import com.fasterxml.jackson.core.io.NumberOutput;
import java.math.BigDecimal;

/**
 * ECMAScript Number::toString for finite doubles, as RFC 8785 §3.2.2.3 requires.
 *
 * <p>Implementation note: the shortest round-trip digits come from the Schubfach algorithm that
 * jackson-core ships ({@link NumberOutput#toString(double, boolean)} with the fast writer), since
 * Java 17's {@link Double#toString(double)} is not always shortest (JDK-4511638, fixed in 19).
 * Schubfach follows Java's rule, which lets a 2-digit result stand where a 1-digit decimal also
 * rounds to the value; that only happens for subnormals and is corrected here to ECMAScript's
 * "fewest digits, then closest" rule (ECMA-262 §6.1.6.1.20). The digits are then laid out in
 * ECMAScript style: plain for 1e-7 &lt; |v| &lt; 1e21, otherwise {@code d.ddde+n}. Integers up to
 * 2^53 and decimals with few fractional digits take faster exact paths.
 */
final class EsNumberFormat {
  private static final double EXACT_INTEGERS = 0x1p53;
  private static final int SHORT_DECIMAL_DIGITS = 8;
  private static final double[] POW10 = {1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8};

  private EsNumberFormat() {}

  /** Appends the ECMAScript rendering of the finite {@code v}; {@code -0} renders as {@code 0}. */
  static void write(double v, ByteSink out) {
    if (v == 0) {
      out.write((byte) '0');
      return;
    }
    if (Math.abs(v) <= EXACT_INTEGERS && v == Math.rint(v)) {
      out.writeLong((long) v);
      return;
    }
    if (writeShortDecimal(v, out)) {
      return;
    }
    writeShortest(v, out);
  }

  /** The general case: Schubfach digits laid out ECMAScript style. */
  static void writeShortest(double v, ByteSink out) {
    String java = NumberOutput.toString(v, true);
    int i = 0;
    boolean negative = java.charAt(0) == '-';
    if (negative) {
      i = 1;
    }
    long digits = 0;
    int fractionDigits = 0;
    boolean afterPoint = false;
    int exponent = 0;
    for (int end = java.length(); i < end; i++) {
      char c = java.charAt(i);
      if (c == '.') {
        afterPoint = true;
      } else if (c == 'E') {
        exponent = Integer.parseInt(java, i + 1, end, 10);
        break;
      } else {
        digits = digits * 10 + (c - '0');
        if (afterPoint) {
          fractionDigits++;
        }
      }
    }
    int scale = exponent - fractionDigits;
    while (digits % 10 == 0) {
      digits /= 10;
      scale++;
    }
    int k = ByteSink.digitCount(digits);
    int n = k + scale;
    if (k == 2 && Math.abs(v) < Double.MIN_NORMAL) {
      long one = oneDigitSubnormal(Math.abs(v), digits, n);
      if (one > 0) {
        n = one == 10 ? n + 1 : n;
        digits = one == 10 ? 1 : one;
        k = 1;
      }
    }
    layout(negative, digits, k, n, out);
  }

  /**
   * Writes {@code v} if it has at most {@link #SHORT_DECIMAL_DIGITS} fractional digits and lies in
   * the plain-layout range [1e-6, 2^50), returning false otherwise. Typed-in numbers (prices,
   * rates) are like this, and skipping Schubfach's string round trip makes them several times
   * cheaper.
   *
   * <p>Why this is ECMAScript's output: let k be the fewest fractional digits of a decimal that
   * rounds to v. Then m = rint(v * 10^k) is that decimal's significand, because while v * 10^k &lt;
   * 2^50, half an ulp of v scaled by 10^k plus the multiplication's rounding error stay below 3/8;
   * {@code m / 10^k == v} (one correctly rounded division of exact operands) proves the decimal
   * rounds to v. The same bound puts any two k-digit decimals more than an ulp apart, so m is the
   * only (hence the closest) one; fewest fractional digits is fewest significant digits for a
   * non-integer in this range, and m has no trailing zero or k - 1 would have matched.
   */
  private static boolean writeShortDecimal(double v, ByteSink out) {
    double a = Math.abs(v);
    if (!(a >= 1e-6 && a < 0x1p50)) {
      return false;
    }
    for (int k = 1; k <= SHORT_DECIMAL_DIGITS; k++) {
      double scaled = a * POW10[k];
      if (scaled >= 0x1p50) {
        return false;
      }
      double m = Math.rint(scaled);
      if (m / POW10[k] == a) {
        long digits = (long) m;
        int count = ByteSink.digitCount(digits);
        layout(v < 0, digits, count, count - k, out);
        return true;
      }
    }
    return false;
  }

  /**
   * The 1-digit significand (scaled like {@code digits / 10}; 10 means 1 at the next power) that
   * ECMAScript prints for a subnormal whose Schubfach digits are the 2-digit {@code digits}, or 0
   * if no 1-digit decimal rounds to {@code abs}.
   */
  private static long oneDigitSubnormal(double abs, long digits, int n) {
    long lo = digits / 10;
    long hi = lo + 1;
    BigDecimal exact = new BigDecimal(abs);
    BigDecimal loValue = BigDecimal.valueOf(lo, 1 - n);
    BigDecimal hiValue = BigDecimal.valueOf(hi, 1 - n);
    int cmp = exact.subtract(loValue).compareTo(hiValue.subtract(exact));
    long s = cmp < 0 ? lo : cmp > 0 ? hi : (lo % 2 == 0 ? lo : hi);
    BigDecimal candidate = s == lo ? loValue : hiValue;
    return candidate.doubleValue() == abs ? s : 0;
  }

  /** ECMA-262 Number::toString steps 6-10 for significand {@code digits} of {@code k} digits. */
  private static void layout(boolean negative, long digits, int k, int n, ByteSink out) {
    out.ensure(k + 32);
    byte[] b = out.buf;
    int p = out.len;
    if (negative) {
      b[p++] = '-';
    }
    if (k <= n && n <= 21) {
      p = putDigits(b, p, digits, k);
      for (int z = k; z < n; z++) {
        b[p++] = '0';
      }
    } else if (0 < n && n <= 21) {
      putDigits(b, p, digits, k);
      System.arraycopy(b, p + n, b, p + n + 1, k - n);
      b[p + n] = '.';
      p += k + 1;
    } else if (-6 < n && n <= 0) {
      b[p++] = '0';
      b[p++] = '.';
      for (int z = n; z < 0; z++) {
        b[p++] = '0';
      }
      p = putDigits(b, p, digits, k);
    } else {
      putDigits(b, p + 1, digits, k);
      b[p] = b[p + 1];
      if (k > 1) {
        b[p + 1] = '.';
        p += k + 1;
      } else {
        p += 1;
      }
      b[p++] = 'e';
      int e = n - 1;
      b[p++] = (byte) (e > 0 ? '+' : '-');
      out.len = p;
      out.writeLong(Math.abs(e));
      return;
    }
    out.len = p;
  }

  private static int putDigits(byte[] b, int p, long digits, int k) {
    for (int q = p + k - 1; q >= p; q--) {
      b[q] = (byte) ('0' + (int) (digits % 10));
      digits /= 10;
    }
    return p + k;
  }
}
