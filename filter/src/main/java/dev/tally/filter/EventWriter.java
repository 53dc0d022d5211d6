package dev.tally.filter;

import java.io.PrintWriter;
import java.util.ArrayDeque;

/**
 * The writer an application's MCP server gets for its standalone ({@code GET}) event stream,
 * through which Tally adds its own events (issue 18: {@code notifications/tools/list_changed}).
 * Everything the application writes passes through unchanged, in order; Tally's event is written
 * only between two of the application's events — where the text so far ends with a blank line, the
 * end of an SSE event (WHATWG HTML, "Server-sent events", 9.2.6) — else held until the
 * application's current event ends. So no event is ever split, whatever pieces the application
 * writes in, as long as it writes {@code text/event-stream}. Thread-safe: the application's writes
 * and {@link #inject} take the same lock.
 */
final class EventWriter extends PrintWriter {
  private final PrintWriter out;
  private final Object guard = new Object();
  private final ArrayDeque<String> held = new ArrayDeque<>();
  private boolean started;
  private int lineEnds;
  private boolean afterCr;
  private boolean gone;
  private final java.util.function.BooleanSupplier eventStream;

  /** Over {@code out}; events are added only while {@code eventStream} says the answer is SSE. */
  EventWriter(PrintWriter out, java.util.function.BooleanSupplier eventStream) {
    super(out);
    this.out = out;
    this.eventStream = eventStream;
  }

  /**
   * Writes {@code event} (one whole encoded SSE event) between the application's events, now or
   * once its current one ends; false when the stream is gone (closed, or its client went away).
   * Nothing is added to an answer that is not (or not yet) a 200 {@code text/event-stream}.
   */
  boolean inject(String event) {
    synchronized (guard) {
      if (gone) {
        return false;
      }
      if (!eventStream.getAsBoolean()) {
        return true;
      }
      if (atBoundary()) {
        out.write(event);
        out.flush();
        if (out.checkError()) {
          gone = true;
          return false;
        }
      } else {
        held.add(event);
      }
      return true;
    }
  }

  /** Whether the stream can take no more events. */
  boolean gone() {
    synchronized (guard) {
      return gone;
    }
  }

  @Override
  public void write(int c) {
    synchronized (guard) {
      out.write(c);
      track((char) c);
      release();
    }
  }

  @Override
  public void write(char[] b, int off, int len) {
    synchronized (guard) {
      out.write(b, off, len);
      for (int i = off; i < off + len; i++) {
        track(b[i]);
      }
      release();
    }
  }

  @Override
  public void write(String s, int off, int len) {
    synchronized (guard) {
      out.write(s, off, len);
      for (int i = off; i < off + len; i++) {
        track(s.charAt(i));
      }
      release();
    }
  }

  @Override
  public void println() {
    write(System.lineSeparator());
  }

  @Override
  public void flush() {
    synchronized (guard) {
      out.flush();
    }
  }

  @Override
  public boolean checkError() {
    synchronized (guard) {
      boolean error = out.checkError();
      if (error) {
        gone = true;
      }
      return error;
    }
  }

  @Override
  public void close() {
    synchronized (guard) {
      gone = true;
      out.close();
    }
  }

  private boolean atBoundary() {
    return !started || lineEnds >= 2;
  }

  /** Counts the line ends at the tail of the text ({@code CRLF} is one, as {@code CR} or LF). */
  private void track(char c) {
    started = true;
    if (c == '\n') {
      if (!afterCr) {
        lineEnds++;
      }
      afterCr = false;
    } else if (c == '\r') {
      lineEnds++;
      afterCr = true;
    } else {
      lineEnds = 0;
      afterCr = false;
    }
  }

  /** Writes the held events once the application's event ended (its own flush follows). */
  private void release() {
    while (atBoundary() && !held.isEmpty()) {
      out.write(held.poll());
    }
  }
}
