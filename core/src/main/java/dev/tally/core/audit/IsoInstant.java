package dev.tally.core.audit;

import java.time.Instant;
import java.time.LocalDate;

/**
 * {@link Instant#toString()} without {@link java.time.format.DateTimeFormatter}: every audit entry
 * carries a time, and the formatter was a tenth of the cost of building one. The output is exactly
 * {@code Instant.toString()} (ISO-8601 in UTC; seconds always, the fraction in groups of three
 * digits as needed); years outside 0–9999 are left to it.
 */
final class IsoInstant {
  private static final long SECONDS_PER_DAY = 86_400;
  private static final long MIN_SECOND = -62_167_219_200L; // 0000-01-01T00:00:00Z
  private static final long MAX_SECOND = 253_402_300_799L; // 9999-12-31T23:59:59Z

  private IsoInstant() {}

  static String format(Instant at) {
    long seconds = at.getEpochSecond();
    if (seconds < MIN_SECOND || seconds > MAX_SECOND) {
      return at.toString();
    }
    long day = Math.floorDiv(seconds, SECONDS_PER_DAY);
    int secondOfDay = (int) Math.floorMod(seconds, SECONDS_PER_DAY);
    LocalDate date = LocalDate.ofEpochDay(day);
    int nano = at.getNano();
    byte[] b = new byte[30];
    int p = 0;
    p = digits(b, p, date.getYear(), 4);
    b[p++] = '-';
    p = digits(b, p, date.getMonthValue(), 2);
    b[p++] = '-';
    p = digits(b, p, date.getDayOfMonth(), 2);
    b[p++] = 'T';
    p = digits(b, p, secondOfDay / 3600, 2);
    b[p++] = ':';
    p = digits(b, p, secondOfDay / 60 % 60, 2);
    b[p++] = ':';
    p = digits(b, p, secondOfDay % 60, 2);
    if (nano != 0) {
      b[p++] = '.';
      if (nano % 1_000_000 == 0) {
        p = digits(b, p, nano / 1_000_000, 3);
      } else if (nano % 1000 == 0) {
        p = digits(b, p, nano / 1000, 6);
      } else {
        p = digits(b, p, nano, 9);
      }
    }
    b[p++] = 'Z';
    return new String(b, 0, p, java.nio.charset.StandardCharsets.US_ASCII);
  }

  /** Writes {@code value} (not negative) as exactly {@code width} digits, zero-padded. */
  private static int digits(byte[] b, int p, int value, int width) {
    for (int i = p + width - 1; i >= p; i--) {
      b[i] = (byte) ('0' + value % 10);
      value /= 10;
    }
    return p + width;
  }
}
