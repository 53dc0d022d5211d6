package dev.tally.sidecar.internal.sse;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.function.Consumer;

/**
 * An incremental Server-Sent Events parser: feed it byte chunks split anywhere, it calls the sink
 * once per dispatched event. Not thread-safe; one instance per stream.
 *
 * <p>Implementation note: follows the WHATWG HTML "event stream interpretation" rules: lines end in
 * CRLF, LF or CR (a CR at the end of one chunk and an LF at the start of the next are one line
 * end); a leading UTF-8 BOM is skipped; {@code field: value} drops one space after the colon; lines
 * starting with a colon are comments; {@code id} values containing NUL are ignored; {@code retry}
 * must be ASCII digits. An event is dispatched on a blank line if any {@code data} field was seen.
 * Unlike the browser algorithm a limit bounds one event's size, so a hostile upstream cannot make
 * the proxy buffer without end.
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
  private boolean hasData;
  private String id;
  private String type;
  private long retry = -1;
  private int eventBytes;
  private boolean lastWasCr;
  private int bomMatched;

  private SseParser(Consumer<SseEvent> sink, int maxEventBytes) {
    this.sink = sink;
    this.maxEventBytes = maxEventBytes;
  }

  /**
   * A parser that hands each event to {@code sink} and refuses events over {@code maxEventBytes}.
   */
  public static SseParser create(Consumer<SseEvent> sink, int maxEventBytes) {
    if (maxEventBytes <= 0) {
      throw new IllegalArgumentException("maxEventBytes must be positive");
    }
    return new SseParser(sink, maxEventBytes);
  }

  /**
   * Consumes {@code len} bytes of {@code chunk} from {@code off}. Throws {@link SseException} when
   * an event exceeds the size limit; the parser is unusable afterwards.
   */
  public void feed(byte[] chunk, int off, int len) {
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
    resetEvent();
  }

  private void appendLine(byte b) {
    if (++eventBytes > maxEventBytes) {
      throw new SseException("SSE event exceeds " + maxEventBytes + " bytes");
    }
    if (lineLength == line.length) {
      line = Arrays.copyOf(line, line.length * 2);
    }
    line[lineLength++] = b;
  }

  private void endLine() {
    if (lineLength == 0) {
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
      if (hasData) {
        data[dataLength++] = LF;
      }
      System.arraycopy(line, valueStart, data, dataLength, n);
      dataLength += n;
      hasData = true;
    } else if (is("id", nameEnd)) {
      String v = value(valueStart);
      if (v.indexOf('\0') < 0) {
        id = v;
      }
    } else if (is("event", nameEnd)) {
      type = value(valueStart);
    } else if (is("retry", nameEnd)) {
      retry = digits(valueStart);
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
      return retry;
    }
    long v = 0;
    for (int k = valueStart; k < lineLength; k++) {
      byte b = line[k];
      if (b < '0' || b > '9') {
        return retry;
      }
      v = v * 10 + (b - '0');
    }
    return v;
  }

  private void dispatch() {
    if (hasData) {
      SseEvent e = new SseEvent(id, type, Arrays.copyOf(data, dataLength), retry);
      resetEvent();
      sink.accept(e);
    } else {
      resetEvent();
    }
  }

  private void resetEvent() {
    dataLength = 0;
    hasData = false;
    type = null;
    retry = -1;
    eventBytes = 0;
    // The WHATWG "last event ID" persists across events; we hand out per-event ids instead.
    id = null;
  }
}
