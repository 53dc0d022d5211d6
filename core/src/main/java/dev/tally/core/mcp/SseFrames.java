package dev.tally.core.mcp;

import java.nio.charset.StandardCharsets;

/**
 * Frames a complete JSON-RPC message as one Server-Sent Event, the way MCP servers answer a {@code
 * tools/call} on a {@code text/event-stream} response. Both adapters use it for what Tally answers
 * itself, so the framing cannot drift.
 */
public final class SseFrames {
  /** The event type MCP servers use for JSON-RPC messages. */
  public static final String MESSAGE = "message";

  private static final byte[] HEAD =
      ("event: " + MESSAGE + "\ndata: ").getBytes(StandardCharsets.US_ASCII);
  private static final byte[] TAIL = "\n\n".getBytes(StandardCharsets.US_ASCII);

  private SseFrames() {}

  /**
   * {@code event: message}, one {@code data:} line holding {@code json}, and the blank line that
   * ends the event. {@code json} must be compact (no CR or LF), as every encoder in this package
   * writes it; it is checked.
   */
  public static byte[] message(byte[] json) {
    for (byte b : json) {
      if (b == '\n' || b == '\r') {
        throw new IllegalArgumentException("json: contains a line break (expected: compact JSON)");
      }
    }
    byte[] out = new byte[HEAD.length + json.length + TAIL.length];
    System.arraycopy(HEAD, 0, out, 0, HEAD.length);
    System.arraycopy(json, 0, out, HEAD.length, json.length);
    System.arraycopy(TAIL, 0, out, HEAD.length + json.length, TAIL.length);
    return out;
  }
}
