package dev.tally.core.canonical;

import java.math.BigDecimal;

/**
 * Writes a decimal value exactly, laid out as ECMAScript lays out a double (ECMA-262
 * Number::toString steps 6-10): the digits of the value without trailing zeros, plain for 1e-7 &lt;
 * |v| &lt; 1e21, otherwise {@code d.ddde+n} / {@code d.ddde-n}; zero is {@code 0}.
 *
 * <p>For a value that is the ECMAScript rendering of some double this gives the same bytes as
 * {@link EsNumberFormat} does for that double (the digits are the same fewest digits and the layout
 * is the same), so it extends RFC 8785 §3.2.2.3 to values no double holds instead of replacing it.
 * See docs/canonical-form.md.
 */
final class ExactNumberFormat {
  private ExactNumberFormat() {}

  /** Appends the exact rendering of {@code value}. */
  static void write(BigDecimal value, ByteSink out) {
    if (value.signum() == 0) {
      out.write((byte) '0');
      return;
    }
    BigDecimal v = value.stripTrailingZeros();
    String digits = v.unscaledValue().abs().toString();
    int k = digits.length();
    long n = k - (long) v.scale();
    out.ensure(k + 32);
    if (v.signum() < 0) {
      out.write((byte) '-');
    }
    if (k <= n && n <= 21) {
      out.writeAscii(digits);
      for (long z = k; z < n; z++) {
        out.write((byte) '0');
      }
    } else if (0 < n && n <= 21) {
      out.writeAscii(digits.substring(0, (int) n));
      out.write((byte) '.');
      out.writeAscii(digits.substring((int) n));
    } else if (-6 < n && n <= 0) {
      out.write((byte) '0');
      out.write((byte) '.');
      for (long z = n; z < 0; z++) {
        out.write((byte) '0');
      }
      out.writeAscii(digits);
    } else {
      out.write((byte) digits.charAt(0));
      if (k > 1) {
        out.write((byte) '.');
        out.writeAscii(digits.substring(1));
      }
      out.write((byte) 'e');
      out.write(n - 1 > 0 ? (byte) '+' : (byte) '-');
      out.writeLong(Math.abs(n - 1));
    }
  }
}
