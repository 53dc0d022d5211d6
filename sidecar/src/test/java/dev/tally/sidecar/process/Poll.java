package dev.tally.sidecar.process;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Polls a condition until it holds or a deadline passes (tests wait for state, never for time). */
final class Poll {
  private static final long INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

  private Poll() {}

  /** Returns once {@code condition} holds; throws {@link AssertionError} after {@code max}. */
  static void until(Duration max, BooleanSupplier condition, Supplier<String> state)
      throws InterruptedException {
    long deadline = System.nanoTime() + max.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("not within " + max + ": " + state.get());
      }
      LockSupport.parkNanos(INTERVAL_NANOS);
      if (Thread.interrupted()) {
        throw new InterruptedException();
      }
    }
  }
}
