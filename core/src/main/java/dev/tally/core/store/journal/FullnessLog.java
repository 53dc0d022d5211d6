package dev.tally.core.store.journal;

import dev.tally.core.store.StoreException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Tells the operator, in the log, when the store starts refusing new calls because the executions
 * it must keep fill its bound, how many it refused while full (one line per {@link #INTERVAL_NANOS}
 * at most), and when it accepts new calls again. The callers get the refusal as an error; without
 * these lines an operator saw only failing calls and a metric.
 */
final class FullnessLog {
  static final long INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(60);

  private final System.Logger log;
  private final AtomicLong refused = new AtomicLong();
  private volatile boolean full;
  private volatile long lastLine;

  FullnessLog(System.Logger log) {
    this.log = log;
  }

  /** A new call was refused with {@code e} (the store is full). */
  void refused(StoreException e) {
    long n = refused.incrementAndGet();
    long now = System.nanoTime();
    if (!full || now - lastLine >= INTERVAL_NANOS) {
      synchronized (this) {
        if (!full || now - lastLine >= INTERVAL_NANOS) {
          log.log(
              System.Logger.Level.WARNING,
              (full ? "journal store still full (" + n + " new call(s) refused so far): " : "")
                  + e.getMessage());
          full = true;
          lastLine = now;
        }
      }
    }
  }

  /** A new call was admitted: if the store was full, say that it has room again. */
  void admitted() {
    if (full) {
      synchronized (this) {
        if (full) {
          full = false;
          log.log(
              System.Logger.Level.INFO,
              "journal store has room again after refusing "
                  + refused.getAndSet(0)
                  + " new call(s)");
        }
      }
    }
  }
}
