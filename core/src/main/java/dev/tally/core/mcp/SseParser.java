package dev.tally.core.mcp;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * The one incremental {@code text/event-stream} parser of both adapters: feed it byte chunks split
 * anywhere, it calls the sink once per event. Not thread-safe; one instance per stream.
 *
 * <p>Implementation note: follows the WHATWG HTML "event stream interpretation" rules: lines end in
 * CRLF, LF or CR (a CR at the end of one chunk and an LF at the start of the next are one line
 * end); a leading UTF-8 BOM is skipped; {@code field: value} drops one space after the colon; lines
 * starting with a colon are comments; {@code id} values containing NUL are ignored; {@code retry}
 * must be ASCII digits. Two departures, both for a relay: an event is dispatched on a blank line
 * when any of {@code data}, {@code id} or {@code retry} was seen (so a priming event, an id with
 * empty data, and a {@code retry} field reach the relay, which browsers would only absorb), and the
 * {@code id} of each event is reported as that event's own, not as the stream's last id.
 *
 * <p>Overflow policy (one for every consumer): an event whose lines exceed {@code maxEventBytes} is
 * not buffered beyond the limit; when it ends it is dispatched once with empty data and {@link
 * SseEvent#truncated()} set, and the stream goes on. A consumer that relays decides whether that
 * ends the stream; an observer notes that it may have missed a message. A hostile stream therefore
 * never makes the parser hold more than about {@code maxEventBytes}.
 */
public final class SseParser {
  private static final byte CR = '\r';
  private static final byte LF = '\n';
  private static final byte[] BOM = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};

  private final Consumer<SseEvent> sink;
  private final int maxEventBytes;

  private byte[] line = new byte[256];
  private int lineLength;
  private byte[] data = new byte[256];
  private int dataLength;
  private boolean sawField;
  private String id;
  private String type;
  private long retry = -1;
  private int eventBytes;
  private boolean overflow;
  private boolean lineBytes;
  private boolean sawData;
  private boolean lastWasCr;
  private int bomMatched;
  private String lastId;

  private SseParser(Consumer<SseEvent> sink, int maxEventBytes) {
    this.sink = sink;
    this.maxEventBytes = maxEventBytes;
  }

  /**
   * A parser that hands each event to {@code sink}, bounding one event to {@code maxEventBytes}.
   */
  public static SseParser create(Consumer<SseEvent> sink, int maxEventBytes) {
    Objects.requireNonNull(sink, "sink");
    if (maxEventBytes <= 0) {
      throw new IllegalArgumentException("maxEventBytes: " + maxEventBytes + " (expected: > 0)");
    }
    return new SseParser(sink, maxEventBytes);
  }

  /** Consumes {@code len} bytes of {@code chunk} from {@code off}. */
  public void feed(byte[] chunk, int off, int len) {
    Objects.checkFromIndexSize(off, len, chunk.length);
    int i = off;
    int end = off + len;
    // A leading UTF-8 BOM may itself be split across chunks.
    while (bomMatched >= 0 && i < end) {
      if (chunk[i] == BOM[bomMatched]) {
        i++;
        if (++bomMatched == BOM.length) {
          bomMatched = -1;
        }
      } else {
        for (int k = 0; k < bomMatched; k++) {
          appendLine(BOM[k]);
        }
        bomMatched = -1;
      }
    }
    for (; i < end; i++) {
      byte b = chunk[i];
      if (b == LF) {
        if (lastWasCr) {
          lastWasCr = false;
          continue;
        }
        endLine();
      } else if (b == CR) {
        lastWasCr = true;
        endLine();
      } else {
        lastWasCr = false;
        appendLine(b);
      }
    }
  }

  /** Consumes a whole chunk. */
  public void feed(byte[] chunk) {
    feed(chunk, 0, chunk.length);
  }

  /** The stream ended. An incomplete final event is discarded, as the WHATWG algorithm requires. */
  public void end() {
    lineLength = 0;
    lineBytes = false;
    resetEvent();
  }

  /** The last non-empty event id seen on this stream (the SSE "last event ID"), or {@code null}. */
  public String lastEventId() {
    return lastId;
  }

  private void appendLine(byte b) {
    lineBytes = true;
    if (overflow) {
      return;
    }
    if (++eventBytes > maxEventBytes) {
      overflow = true;
      lineLength = 0;
      dataLength = 0;
      return;
    }
    if (lineLength == line.length) {
      line = Arrays.copyOf(line, Math.min(line.length * 2, maxEventBytes + 1));
    }
    line[lineLength++] = b;
  }

  private void endLine() {
    boolean blank = !lineBytes;
    lineBytes = false;
    if (overflow) {
      // The rest of an oversized event is skipped up to the blank line that ends it.
      lineLength = 0;
      if (blank) {
        dispatch();
      }
      return;
    }
    if (blank) {
      dispatch();
      return;
    }
    eventBytes++;
    int colon = -1;
    for (int k = 0; k < lineLength; k++) {
      if (line[k] == ':') {
        colon = k;
        break;
      }
    }
    if (colon == 0) {
      lineLength = 0;
      return;
    }
    int nameEnd = colon < 0 ? lineLength : colon;
    int valueStart = colon < 0 ? lineLength : colon + 1;
    if (valueStart < lineLength && line[valueStart] == ' ') {
      valueStart++;
    }
    field(nameEnd, valueStart);
    lineLength = 0;
  }

  private void field(int nameEnd, int valueStart) {
    if (is("data", nameEnd)) {
      int n = lineLength - valueStart;
      ensureData(n + 1);
      if (sawData) {
        data[dataLength++] = LF;
      }
      System.arraycopy(line, valueStart, data, dataLength, n);
      dataLength += n;
      sawData = true;
      sawField = true;
    } else if (is("id", nameEnd)) {
      String v = value(valueStart);
      if (v.indexOf('\0') < 0) {
        id = v;
        sawField = true;
      }
    } else if (is("event", nameEnd)) {
      type = value(valueStart);
    } else if (is("retry", nameEnd)) {
      long r = digits(valueStart);
      if (r >= 0) {
        retry = r;
        sawField = true;
      }
    }
  }

  private void ensureData(int extra) {
    if (dataLength + extra > data.length) {
      data = Arrays.copyOf(data, Math.max(data.length * 2, dataLength + extra));
    }
  }

  private boolean is(String name, int nameEnd) {
    if (nameEnd != name.length()) {
      return false;
    }
    for (int k = 0; k < nameEnd; k++) {
      if (line[k] != name.charAt(k)) {
        return false;
      }
    }
    return true;
  }

  private String value(int valueStart) {
    return new String(line, valueStart, lineLength - valueStart, StandardCharsets.UTF_8);
  }

  private long digits(int valueStart) {
    if (valueStart == lineLength || lineLength - valueStart > 18) {
      return -1;
    }
    long v = 0;
    for (int k = valueStart; k < lineLength; k++) {
      byte b = line[k];
      if (b < '0' || b > '9') {
        return -1;
      }
      v = v * 10 + (b - '0');
    }
    return v;
  }

  private void dispatch() {
    if (overflow) {
      SseEvent e = new SseEvent(id, type, new byte[0], retry, true);
      resetEvent();
      sink.accept(e);
      return;
    }
    if (!sawField) {
      resetEvent();
      return;
    }
    if (id != null && !id.isEmpty()) {
      lastId = id;
    }
    SseEvent e = new SseEvent(id, type, Arrays.copyOf(data, dataLength), retry, false);
    resetEvent();
    sink.accept(e);
  }

  private void resetEvent() {
    dataLength = 0;
    sawData = false;
    sawField = false;
    type = null;
    retry = -1;
    eventBytes = 0;
    overflow = false;
    id = null;
  }
}
