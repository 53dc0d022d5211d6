package dev.tally.core.mcp;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Optional;

/**
 * The Base64 sentinel of MCP 2026-07-28 header values ({@code Mcp-Name}, {@code Mcp-Param-*}):
 * {@code =?base64?<Base64 of the UTF-8 value>?=}. Markers are case-sensitive.
 */
public final class Base64Sentinel {
  static final String PREFIX = "=?base64?";
  static final String SUFFIX = "?=";

  private Base64Sentinel() {}

  /** Whether {@code headerValue} is in sentinel form. */
  public static boolean isEncoded(String headerValue) {
    return headerValue.length() >= PREFIX.length() + SUFFIX.length()
        && headerValue.startsWith(PREFIX)
        && headerValue.endsWith(SUFFIX);
  }

  /**
   * The value a header carries: decoded if in sentinel form, else the header value itself. Empty if
   * the sentinel holds invalid Base64 or invalid UTF-8.
   */
  public static Optional<String> decode(String headerValue) {
    if (!isEncoded(headerValue)) {
      return Optional.of(headerValue);
    }
    String b64 = headerValue.substring(PREFIX.length(), headerValue.length() - SUFFIX.length());
    try {
      byte[] raw = Base64.getDecoder().decode(b64);
      return Optional.of(
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(raw))
              .toString());
    } catch (IllegalArgumentException | CharacterCodingException e) {
      return Optional.empty();
    }
  }

  /**
   * How a client encodes {@code value} for a header: as-is when it is plain visible ASCII or inner
   * spaces and does not look like a sentinel, else in sentinel form.
   */
  public static String encode(String value) {
    if (isPlain(value) && !isEncoded(value)) {
      return value;
    }
    return PREFIX
        + Base64.getEncoder().encodeToString(value.getBytes(StandardCharsets.UTF_8))
        + SUFFIX;
  }

  /** Whether every character is a legal header-value character (visible ASCII, space, tab). */
  public static boolean isLegalHeaderValue(String v) {
    for (int i = 0; i < v.length(); i++) {
      char c = v.charAt(i);
      if (!(c == ' ' || c == '\t' || (c >= 0x21 && c <= 0x7e))) {
        return false;
      }
    }
    return true;
  }

  private static boolean isPlain(String v) {
    if (v.isEmpty()) {
      return true;
    }
    char first = v.charAt(0);
    char last = v.charAt(v.length() - 1);
    if (first == ' ' || first == '\t' || last == ' ' || last == '\t') {
      return false;
    }
    return isLegalHeaderValue(v);
  }
}
