package dev.tally.sidecar.internal.sse;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/** Encodes events in the {@code text/event-stream} format. Stateless. */
public final class SseWriter {
  private static final byte[] ID = "id: ".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] EVENT = "event: ".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] DATA = "data: ".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] RETRY = "retry: ".getBytes(StandardCharsets.US_ASCII);

  private SseWriter() {}

  /**
   * The wire bytes of {@code e}: optional {@code id}, {@code event} and {@code retry} fields, one
   * {@code data} line per LF-separated line of the data (so embedded line breaks survive), and the
   * blank line that dispatches it. CR characters in data are treated as line breaks, as a parser
   * would.
   */
  public static byte[] encode(SseEvent e) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(e.data().length + 64);
    if (e.id() != null) {
      out.writeBytes(ID);
      out.writeBytes(safe(e.id()));
      out.write('\n');
    }
    if (e.type() != null && !e.type().equals("message")) {
      out.writeBytes(EVENT);
      out.writeBytes(safe(e.type()));
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

  /** A priming event: an id and empty data, so a client has a cursor before the first message. */
  public static byte[] priming(String id) {
    return encode(new SseEvent(id, null, new byte[0], -1));
  }

  private static byte[] safe(String field) {
    StringBuilder b = new StringBuilder(field.length());
    for (int i = 0; i < field.length(); i++) {
      char c = field.charAt(i);
      if (c != '\r' && c != '\n' && c != '\0') {
        b.append(c);
      }
    }
    return b.toString().getBytes(StandardCharsets.UTF_8);
  }
}
