package dev.tally.core.mcp;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * An incremental {@code text/event-stream} parser: bytes go in as they arrive, in chunks split
 * anywhere, and each complete event comes out to the consumer once its blank line is seen. Not
 * thread-safe; one parser per stream.
 *
 * <p>Implementation note: follows the WHATWG HTML "Parsing an event stream" algorithm: lines end in
 * CR, LF or CRLF (a CR at the end of one chunk and the LF at the start of the next are one line
 * end); a leading UTF-8 BOM is skipped; {@code data} lines are joined with LF; an event with no
 * data is not dispatched; {@code id} containing NUL is ignored; comments and unknown fields are
 * ignored. Lines are kept as bytes and decoded as UTF-8 only once complete, which is safe because
 * CR and LF never occur inside a multi-byte UTF-8 sequence. Data beyond {@code maxEventBytes} is
 * dropped and the event is marked {@link SseEvent#truncated()}, so a hostile stream cannot grow the
 * buffer without bound.
 */
public final class SseParser {
  /** Default cap on one event's data, in bytes. */
  public static final int DEFAULT_MAX_EVENT_BYTES = 16 * 1024 * 1024;

  private final Consumer<SseEvent> sink;
  private final int maxEventBytes;
  private byte[] line = new byte[256];
  private int lineLen;
  private boolean lineOverflow;
  private boolean lastWasCr;
  private boolean bomChecked;
  private final StringBuilder data = new StringBuilder();
  private int dataBytes;
  private boolean hasData;
  private boolean truncated;
  private String event;
  private String lastId;

  private SseParser(Consumer<SseEvent> sink, int maxEventBytes) {
    this.sink = sink;
    this.maxEventBytes = maxEventBytes;
  }

  /** A parser that hands each complete event to {@code sink}. */
  public static SseParser create(Consumer<SseEvent> sink, int maxEventBytes) {
    Objects.requireNonNull(sink, "sink");
    if (maxEventBytes <= 0) {
      throw new IllegalArgumentException("maxEventBytes: " + maxEventBytes + " (expected: > 0)");
    }
    return new SseParser(sink, maxEventBytes);
  }

  /** A parser with {@link #DEFAULT_MAX_EVENT_BYTES}. */
  public static SseParser create(Consumer<SseEvent> sink) {
    return create(sink, DEFAULT_MAX_EVENT_BYTES);
  }

  /** Feeds {@code len} bytes at {@code off}. */
  public void feed(byte[] b, int off, int len) {
    Objects.checkFromIndexSize(off, len, b.length);
    int end = off + len;
    for (int i = off; i < end; i++) {
      byte c = b[i];
      if (c == '\n') {
        if (lastWasCr) {
          lastWasCr = false;
          continue;
        }
        endLine();
      } else if (c == '\r') {
        lastWasCr = true;
        endLine();
      } else {
        lastWasCr = false;
        append(c);
      }
    }
  }

  /** Feeds a whole array. */
  public void feed(byte[] b) {
    feed(b, 0, b.length);
  }

  /** The stream ended. A final event without its blank line is discarded, as the algorithm says. */
  public void end() {
    lineLen = 0;
    resetEvent();
  }

  /** The last event id seen on this stream, or {@code null}. */
  public String lastEventId() {
    return lastId;
  }

  private void append(byte c) {
    if (lineOverflow) {
      return;
    }
    if (lineLen == line.length) {
      if (lineLen >= maxEventBytes + 16) {
        lineOverflow = true;
        return;
      }
      line = Arrays.copyOf(line, Math.min(lineLen * 2, maxEventBytes + 16));
    }
    line[lineLen++] = c;
  }

  private void endLine() {
    int start = 0;
    if (!bomChecked) {
      bomChecked = true;
      if (lineLen >= 3
          && line[0] == (byte) 0xEF
          && line[1] == (byte) 0xBB
          && line[2] == (byte) 0xBF) {
        start = 3;
      }
    }
    boolean overflow = lineOverflow;
    int len = lineLen - start;
    lineLen = 0;
    lineOverflow = false;
    if (len == 0) {
      dispatch();
      return;
    }
    if (line[start] == ':') {
      return;
    }
    int colon = -1;
    for (int i = start; i < start + len; i++) {
      if (line[i] == ':') {
        colon = i;
        break;
      }
    }
    String field;
    int valueStart;
    if (colon < 0) {
      field = new String(line, start, len, StandardCharsets.UTF_8);
      valueStart = start + len;
    } else {
      field = new String(line, start, colon - start, StandardCharsets.UTF_8);
      valueStart = colon + 1;
      if (valueStart < start + len && line[valueStart] == ' ') {
        valueStart++;
      }
    }
    int valueLen = start + len - valueStart;
    switch (field) {
      case "data" -> {
        if (overflow || dataBytes + valueLen + 1 > maxEventBytes) {
          truncated = true;
          hasData = true;
          return;
        }
        data.append(new String(line, valueStart, valueLen, StandardCharsets.UTF_8)).append('\n');
        dataBytes += valueLen + 1;
        hasData = true;
      }
      case "event" -> event = new String(line, valueStart, valueLen, StandardCharsets.UTF_8);
      case "id" -> {
        String id = new String(line, valueStart, valueLen, StandardCharsets.UTF_8);
        if (id.indexOf('\0') < 0) {
          lastId = id;
        }
      }
      default -> {
        // retry and unknown fields carry nothing an observer needs.
      }
    }
  }

  private void dispatch() {
    if (!hasData) {
      resetEvent();
      return;
    }
    if (data.length() > 0 && data.charAt(data.length() - 1) == '\n') {
      data.setLength(data.length() - 1);
    }
    SseEvent e = new SseEvent(lastId, event, data.toString(), truncated);
    resetEvent();
    sink.accept(e);
  }

  private void resetEvent() {
    data.setLength(0);
    dataBytes = 0;
    hasData = false;
    truncated = false;
    event = null;
  }
}
