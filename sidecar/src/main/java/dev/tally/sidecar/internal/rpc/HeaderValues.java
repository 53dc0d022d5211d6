package dev.tally.sidecar.internal.rpc;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * Decodes MCP header values (2026-07-28 "Value Encoding"): a value of the form {@code
 * =?base64?<Base64>?=} carries the Base64 of UTF-8 text; anything else must be plain visible ASCII,
 * space or tab.
 */
public final class HeaderValues {
  static final String PREFIX = "=?base64?";
  static final String SUFFIX = "?=";

  private HeaderValues() {}

  /**
   * The decoded value of a {@code Mcp-Name} or {@code Mcp-Param-*} header, or {@code null} if the
   * value is malformed (invalid characters, bad Base64 or invalid UTF-8). The sentinel markers are
   * case-sensitive, as the spec requires.
   */
  public static String decode(String raw) {
    if (raw == null) {
      return null;
    }
    if (raw.startsWith(PREFIX)
        && raw.endsWith(SUFFIX)
        && raw.length() >= PREFIX.length() + SUFFIX.length()) {
      String b64 = raw.substring(PREFIX.length(), raw.length() - SUFFIX.length());
      byte[] bytes;
      try {
        bytes = Base64.getDecoder().decode(b64);
      } catch (IllegalArgumentException e) {
        return null;
      }
      try {
        return StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT)
            .decode(ByteBuffer.wrap(bytes))
            .toString();
      } catch (CharacterCodingException e) {
        return null;
      }
    }
    for (int i = 0; i < raw.length(); i++) {
      char c = raw.charAt(i);
      if (!(c == '\t' || (c >= 0x20 && c <= 0x7E))) {
        return null;
      }
    }
    return raw;
  }
}
