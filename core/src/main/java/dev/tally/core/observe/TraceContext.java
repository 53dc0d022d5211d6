package dev.tally.core.observe;

import java.util.concurrent.ThreadLocalRandom;

/**
 * W3C Trace Context ({@code traceparent}, version 00) without a tracer, for {@link Telemetry#NONE}:
 * continues the caller's trace (and its sampled flag) with a new span id for the upstream hop, or
 * starts an unsampled trace when the header is absent or malformed: nothing is recorded, so nothing
 * may claim to be.
 */
final class TraceContext {
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private TraceContext() {}

  /** The {@code traceparent} to send upstream for an incoming one (may be {@code null}). */
  static String next(String incoming) {
    String traceId = null;
    String flags = "00";
    if (incoming != null) {
      String[] p = incoming.trim().split("-");
      if (p.length >= 4
          && p[0].length() == 2
          && !p[0].equals("ff")
          && hex(p[0])
          && p[1].length() == 32
          && hex(p[1])
          && !zero(p[1])
          && p[2].length() == 16
          && hex(p[2])
          && !zero(p[2])
          && p[3].length() == 2
          && hex(p[3])) {
        traceId = p[1];
        flags = p[3];
      }
    }
    if (traceId == null) {
      traceId = random(16);
    }
    return "00-" + traceId + "-" + random(8) + "-" + flags;
  }

  /** Whether {@code next}, made by {@link #next}, continues the trace of {@code incoming}. */
  static boolean continues(String incoming, String next) {
    return incoming != null
        && next != null
        && next.length() >= 35
        && incoming.trim().length() >= 35
        && incoming.trim().regionMatches(3, next, 3, 32);
  }

  private static boolean hex(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
        return false;
      }
    }
    return true;
  }

  private static boolean zero(String s) {
    for (int i = 0; i < s.length(); i++) {
      if (s.charAt(i) != '0') {
        return false;
      }
    }
    return true;
  }

  /**
   * {@code bytes} (8 or 16) random bytes as lower-case hex, never all zero (W3C Trace Context): one
   * {@code nextLong} per 8 bytes, formatted in place (a dispatched call makes two of these).
   */
  private static String random(int bytes) {
    ThreadLocalRandom r = ThreadLocalRandom.current();
    char[] out = new char[bytes * 2];
    long any;
    do {
      any = 0;
      for (int at = 0; at < out.length; at += 16) {
        long v = r.nextLong();
        any |= v;
        for (int i = at + 15; i >= at; i--) {
          out[i] = HEX[(int) (v & 0xf)];
          v >>>= 4;
        }
      }
    } while (any == 0);
    return new String(out);
  }
}
