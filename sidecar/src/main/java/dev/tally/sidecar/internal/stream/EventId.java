package dev.tally.sidecar.internal.stream;

import java.security.SecureRandom;
import java.util.Random;

/**
 * An SSE event id the sidecar hands out: {@code <streamId>.<seq>}. The stream id is 22 random
 * URL-safe characters (≈ 131 bits, so a cursor cannot be guessed); the sequence counts events on
 * that stream from 1 ({@code 0} is the priming cursor, "before the first event").
 */
public record EventId(String stream, long seq) {
  private static final char[] ALPHABET =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".toCharArray();
  private static final int STREAM_LENGTH = 22;
  private static final int MAX_SEQ_DIGITS = 18;
  private static final Random RANDOM = new SecureRandom();

  public EventId {
    if (!isStreamId(stream)) {
      throw new IllegalArgumentException("invalid stream id");
    }
    if (seq < 0) {
      throw new IllegalArgumentException("negative sequence");
    }
  }

  /** A fresh, unguessable stream id. */
  public static String newStreamId() {
    return newStreamId(RANDOM);
  }

  /** A stream id drawn from {@code random} (tests pass a seeded one). */
  public static String newStreamId(Random random) {
    char[] c = new char[STREAM_LENGTH];
    for (int i = 0; i < c.length; i++) {
      c[i] = ALPHABET[random.nextInt(ALPHABET.length)];
    }
    return new String(c);
  }

  /**
   * Parses a {@code Last-Event-ID} value; {@code null} when it is not an id this sidecar could have
   * issued (never throws on client input).
   */
  public static EventId parse(String value) {
    if (value == null) {
      return null;
    }
    String v = value.trim();
    int dot = v.indexOf('.');
    if (dot != STREAM_LENGTH) {
      return null;
    }
    String stream = v.substring(0, dot);
    String digits = v.substring(dot + 1);
    if (!isStreamId(stream) || digits.isEmpty() || digits.length() > MAX_SEQ_DIGITS) {
      return null;
    }
    long seq = 0;
    for (int i = 0; i < digits.length(); i++) {
      char ch = digits.charAt(i);
      if (ch < '0' || ch > '9') {
        return null;
      }
      seq = seq * 10 + (ch - '0');
    }
    return new EventId(stream, seq);
  }

  private static boolean isStreamId(String s) {
    if (s == null || s.length() != STREAM_LENGTH) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      char ch = s.charAt(i);
      boolean ok =
          (ch >= 'A' && ch <= 'Z')
              || (ch >= 'a' && ch <= 'z')
              || (ch >= '0' && ch <= '9')
              || ch == '-'
              || ch == '_';
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  /** The wire form {@code <stream>.<seq>}. */
  @Override
  public String toString() {
    return stream + "." + seq;
  }
}
