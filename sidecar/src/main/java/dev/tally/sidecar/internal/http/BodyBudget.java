package dev.tally.sidecar.internal.http;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The request-body bytes every connection of a port may hold at once ({@code
 * sidecar.maxBufferedRequestBytes}). A request reserves bytes as they arrive and gives them back
 * when its response ends. Thread-safe.
 */
public final class BodyBudget {
  private final long max;
  private final AtomicLong used = new AtomicLong();

  private BodyBudget(long max) {
    this.max = max;
  }

  public static BodyBudget of(long maxBytes) {
    if (maxBytes < 1) {
      throw new IllegalArgumentException("maxBytes: " + maxBytes + " (expected: positive)");
    }
    return new BodyBudget(maxBytes);
  }

  /** A request's share, empty until it reserves. */
  public Hold hold() {
    return new Hold();
  }

  public long used() {
    return used.get();
  }

  public long max() {
    return max;
  }

  /** One request's reserved bytes; {@link #release()} is idempotent. */
  public final class Hold {
    private long held;
    private boolean released;

    private Hold() {}

    /** Reserves {@code n} more bytes; false (nothing reserved) if that would pass the budget. */
    public boolean reserve(long n) {
      if (released) {
        return false;
      }
      while (true) {
        long u = used.get();
        if (u + n > max) {
          return false;
        }
        if (used.compareAndSet(u, u + n)) {
          held += n;
          return true;
        }
      }
    }

    public void release() {
      if (!released) {
        released = true;
        used.addAndGet(-held);
        held = 0;
      }
    }
  }
}
