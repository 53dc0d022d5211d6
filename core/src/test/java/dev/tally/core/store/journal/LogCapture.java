package dev.tally.core.store.journal;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/** Collects what the journal logs (System.Logger goes to java.util.logging here). */
final class LogCapture implements AutoCloseable {
  private final Logger logger = Logger.getLogger(JournalExecutionStore.class.getName());
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

  private final boolean parentHandlers;

  private LogCapture() {
    handler.setLevel(Level.ALL);
    logger.addHandler(handler);
    parentHandlers = logger.getUseParentHandlers();
    logger.setUseParentHandlers(false); // captured, not printed
  }

  static LogCapture start() {
    return new LogCapture();
  }

  /** Messages at WARNING and above. */
  List<String> warnings() {
    return records.stream()
        .filter(r -> r.getLevel().intValue() >= Level.WARNING.intValue())
        .map(LogRecord::getMessage)
        .toList();
  }

  /** Messages at INFO. */
  List<String> infos() {
    return records.stream()
        .filter(r -> r.getLevel().intValue() == Level.INFO.intValue())
        .map(LogRecord::getMessage)
        .toList();
  }

  @Override
  public void close() {
    logger.removeHandler(handler);
    logger.setUseParentHandlers(parentHandlers);
  }
}
