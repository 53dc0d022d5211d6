package dev.tally.bench.load;

import java.nio.charset.StandardCharsets;

/**
 * The canned MCP answers of {@link CannedUpstream}: {@code initialize}, {@code tools/list}, the
 * read-only tool {@code lookup} and the side-effecting tool {@code create_ticket}, each echoing the
 * request's JSON-RPC id.
 *
 * <p>Implementation note: the request is classified by byte search (the benchmark's requests are
 * compact JSON with the id before {@code params}), not parsed, so the upstream stays much cheaper
 * than any proxy in front of it. This is a benchmark fixture, not an MCP implementation.
 */
final class CannedAnswers {
  /** What a request asks for. */
  enum Kind {
    INITIALIZE,
    LIST,
    LOOKUP,
    CREATE_TICKET,
    NOTIFICATION,
    UNKNOWN
  }

  private static final byte[] HEAD = ascii("{\"jsonrpc\":\"2.0\",\"id\":");
  private static final byte[] INITIALIZE =
      ascii(
          ",\"result\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{}},"
              + "\"serverInfo\":{\"name\":\"canned-upstream\",\"version\":\"1\"}}}");
  private static final byte[] LIST =
      ascii(
          ",\"result\":{\"tools\":["
              + "{\"name\":\"lookup\",\"description\":\"Reads a value (no side effect).\","
              + "\"inputSchema\":{\"type\":\"object\",\"properties\":{\"key\":{\"type\":\"string\"}}},"
              + "\"annotations\":{\"readOnlyHint\":true}},"
              + "{\"name\":\"create_ticket\",\"description\":\"Creates a ticket (counted).\","
              + "\"inputSchema\":{\"type\":\"object\",\"properties\":{\"title\":{\"type\":\"string\"},"
              + "\"body\":{\"type\":\"string\"}},\"required\":[\"title\"]}}]}}");
  private static final byte[] LOOKUP =
      ascii(
          ",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"value-42\"}],"
              + "\"isError\":false}}");
  private static final byte[] CREATED =
      ascii(
          ",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"ticket created\"}],"
              + "\"isError\":false}}");
  private static final byte[] UNKNOWN =
      ascii(",\"error\":{\"code\":-32601,\"message\":\"method not found\"}}");

  private static final byte[] M_CALL = ascii("\"tools/call\"");
  private static final byte[] M_LIST = ascii("\"tools/list\"");
  private static final byte[] M_INIT = ascii("\"initialize\"");
  private static final byte[] T_CREATE = ascii("\"create_ticket\"");
  private static final byte[] T_LOOKUP = ascii("\"lookup\"");
  private static final byte[] ID = ascii("\"id\"");

  private CannedAnswers() {}

  static Kind classify(byte[] b) {
    if (indexOf(b, M_CALL, 0) >= 0) {
      if (indexOf(b, T_CREATE, 0) >= 0) {
        return Kind.CREATE_TICKET;
      }
      return indexOf(b, T_LOOKUP, 0) >= 0 ? Kind.LOOKUP : Kind.UNKNOWN;
    }
    if (idStart(b) < 0) {
      return Kind.NOTIFICATION;
    }
    if (indexOf(b, M_LIST, 0) >= 0) {
      return Kind.LIST;
    }
    return indexOf(b, M_INIT, 0) >= 0 ? Kind.INITIALIZE : Kind.UNKNOWN;
  }

  /** The full JSON-RPC response to {@code request} of kind {@code kind} (not a notification). */
  static byte[] answer(byte[] request, Kind kind) {
    return answer(request, kind, 0);
  }

  /**
   * As {@link #answer(byte[], Kind)}; a call's result text is {@code resultBytes} bytes of {@code
   * x} when that is positive.
   */
  static byte[] answer(byte[] request, Kind kind, int resultBytes) {
    byte[] tail =
        switch (kind) {
          case INITIALIZE -> INITIALIZE;
          case LIST -> LIST;
          case LOOKUP -> resultBytes > 0 ? padded(resultBytes) : LOOKUP;
          case CREATE_TICKET -> resultBytes > 0 ? padded(resultBytes) : CREATED;
          default -> UNKNOWN;
        };
    int start = idStart(request);
    int end = start < 0 ? -1 : valueEnd(request, start);
    int idLen = end < 0 ? 4 : end - start;
    byte[] out = new byte[HEAD.length + idLen + tail.length];
    System.arraycopy(HEAD, 0, out, 0, HEAD.length);
    if (end < 0) {
      System.arraycopy(ascii("null"), 0, out, HEAD.length, 4);
    } else {
      System.arraycopy(request, start, out, HEAD.length, idLen);
    }
    System.arraycopy(tail, 0, out, HEAD.length + idLen, tail.length);
    return out;
  }

  private static final byte[] PADDED_HEAD =
      ascii(",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"");
  private static final byte[] PADDED_TAIL = ascii("\"}],\"isError\":false}}");

  /** A tool result whose one text block is {@code n} bytes of {@code x}. */
  private static byte[] padded(int n) {
    byte[] out = new byte[PADDED_HEAD.length + n + PADDED_TAIL.length];
    System.arraycopy(PADDED_HEAD, 0, out, 0, PADDED_HEAD.length);
    java.util.Arrays.fill(out, PADDED_HEAD.length, PADDED_HEAD.length + n, (byte) 'x');
    System.arraycopy(PADDED_TAIL, 0, out, PADDED_HEAD.length + n, PADDED_TAIL.length);
    return out;
  }

  /** Offset of the first byte of the value of the first {@code "id"} member, or -1. */
  static int idStart(byte[] b) {
    int from = 0;
    while (true) {
      int at = indexOf(b, ID, from);
      if (at < 0) {
        return -1;
      }
      int i = skipSpace(b, at + ID.length);
      if (i < b.length && b[i] == ':') {
        i = skipSpace(b, i + 1);
        return i < b.length ? i : -1;
      }
      from = at + 1;
    }
  }

  /** End (exclusive) of the number, string or literal starting at {@code start}, or -1. */
  static int valueEnd(byte[] b, int start) {
    if (b[start] == '"') {
      for (int i = start + 1; i < b.length; i++) {
        if (b[i] == '\\') {
          i++;
        } else if (b[i] == '"') {
          return i + 1;
        }
      }
      return -1;
    }
    int i = start;
    while (i < b.length && b[i] != ',' && b[i] != '}' && b[i] > ' ') {
      i++;
    }
    return i > start ? i : -1;
  }

  private static int skipSpace(byte[] b, int i) {
    while (i < b.length && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r')) {
      i++;
    }
    return i;
  }

  static int indexOf(byte[] b, byte[] needle, int from) {
    outer:
    for (int i = from; i <= b.length - needle.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (b[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
