package dev.tally.core.audit;

import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;

/**
 * The thread that flushes a journal when an appender found too much buffered (see {@link Journal}),
 * so that the appender, often an event loop, never writes or forces a file. Started on first use:
 * with a store whose group commits drain the journals, it usually never is.
 */
final class Relief implements Executor, AutoCloseable {
  static final String THREAD_NAME = "tally-audit-relief";

  private final Executor runner;
  private ExecutorService executor;
  private boolean closed;

  Relief() {
    this(null);
  }

  /** Runs the flushes with {@code runner} instead of a thread of its own (tests). */
  Relief(Executor runner) {
    this.runner = runner;
  }

  @Override
  public synchronized void execute(Runnable task) {
    if (closed) {
      throw new RejectedExecutionException("the audit journals are closed");
    }
    if (runner != null) {
      runner.execute(task);
      return;
    }
    if (executor == null) {
      executor =
          Executors.newSingleThreadExecutor(
              r -> {
                Thread t = new Thread(r, THREAD_NAME);
                t.setDaemon(true);
                return t;
              });
    }
    executor.execute(task);
  }

  /** Refuses further work; what was handed over still runs (a flush, then nothing more). */
  @Override
  public synchronized void close() {
    closed = true;
    if (executor != null) {
      executor.shutdown();
    }
  }
}
