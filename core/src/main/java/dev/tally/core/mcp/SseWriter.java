package dev.tally.core.mcp;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Encodes events in the {@code text/event-stream} format, for every stream Tally writes: relayed
 * events under the sidecar's ids and the answers Tally writes itself. Stateless.
 */
public final class SseWriter {
  private static final byte[] ID = "id: ".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] EVENT = "event: ".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] DATA = "data: ".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] RETRY = "retry: ".getBytes(StandardCharsets.US_ASCII);

  private SseWriter() {}

  /**
   * The wire bytes of {@code e}: optional {@code id}, {@code event} and {@code retry} fields, one
   * {@code data} line per LF-separated line of the data (so embedded line breaks survive; an event
   * without data gets one empty {@code data} line, the priming form), and the blank line that
   * dispatches it. CR characters in data are treated as line breaks, as a parser would.
   */
  public static byte[] encode(SseEvent e) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(e.data().length + 64);
    if (e.id() != null) {
      out.writeBytes(ID);
      out.writeBytes(safe(e.id(), true));
      out.write('\n');
    }
    if (e.type() != null) {
      out.writeBytes(EVENT);
      out.writeBytes(safe(e.type(), false));
      out.write('\n');
    }
    if (e.retry() >= 0) {
      out.writeBytes(RETRY);
      out.writeBytes(Long.toString(e.retry()).getBytes(StandardCharsets.US_ASCII));
      out.write('\n');
    }
    byte[] d = e.data();
    int start = 0;
    for (int i = 0; i <= d.length; i++) {
      if (i == d.length || d[i] == '\n' || d[i] == '\r') {
        out.writeBytes(DATA);
        out.write(d, start, i - start);
        out.write('\n');
        if (i < d.length && d[i] == '\r' && i + 1 < d.length && d[i + 1] == '\n') {
          i++;
        }
        start = i + 1;
      }
    }
    out.write('\n');
    return out.toByteArray();
  }

  /**
   * A complete JSON-RPC message as one {@code event: message} without an id, as MCP servers frame
   * it: how Tally answers on a stream it writes alone (the servlet filter).
   */
  public static byte[] message(byte[] json) {
    return encode(SseEvent.message(json));
  }

  /** A priming event: {@code id} and empty data, with a {@code retry} field when not negative. */
  public static byte[] priming(String id, long retry) {
    return encode(SseEvent.priming(id, retry));
  }

  /**
   * {@code field} without line breaks, which would end the field; NUL is dropped from an id only (a
   * parser ignores an id with NUL, while an event type may hold one and must survive a relay).
   */
  private static byte[] safe(String field, boolean dropNul) {
    StringBuilder b = new StringBuilder(field.length());
    for (int i = 0; i < field.length(); i++) {
      char c = field.charAt(i);
      if (c != '\r' && c != '\n' && !(dropNul && c == '\0')) {
        b.append(c);
      }
    }
    return b.toString().getBytes(StandardCharsets.UTF_8);
  }
}
