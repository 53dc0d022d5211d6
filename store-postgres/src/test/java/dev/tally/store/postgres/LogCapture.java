package dev.tally.store.postgres;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/** Collects everything logged through java.util.logging (System.Logger and Vert.x end there). */
final class LogCapture implements AutoCloseable {
  private final Logger root = Logger.getLogger("");
  private final Level before = root.getLevel();
  private final List<LogRecord> records = new CopyOnWriteArrayList<>();
  private final Handler handler =
      new Handler() {
        @Override
        public void publish(LogRecord r) {
          records.add(r);
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
      };

  private LogCapture() {
    handler.setLevel(Level.ALL);
    root.setLevel(Level.ALL);
    root.addHandler(handler);
  }

  static LogCapture start() {
    return new LogCapture();
  }

  /** Every record as text: logger, message, parameters and the stack trace of its throwable. */
  String text() {
    return text(Level.ALL);
  }

  /** {@link #text()} of the records at {@code least} or above. */
  String text(Level least) {
    StringBuilder out = new StringBuilder();
    for (LogRecord r : records) {
      if (r.getLevel().intValue() < least.intValue()) {
        continue;
      }
      out.append(r.getLoggerName()).append(' ').append(r.getMessage());
      if (r.getParameters() != null) {
        for (Object p : r.getParameters()) {
          out.append(' ').append(p);
        }
      }
      if (r.getThrown() != null) {
        StringWriter w = new StringWriter();
        r.getThrown().printStackTrace(new PrintWriter(w));
        out.append(' ').append(w);
      }
      out.append('\n');
    }
    return out.toString();
  }

  int size() {
    return records.size();
  }

  @Override
  public void close() {
    root.removeHandler(handler);
    root.setLevel(before);
  }
}
