package dev.tally.store.postgres;

import io.vertx.sqlclient.Tuple;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

/**
 * The {@code tally.outcome_unknown.current} gauge over PostgreSQL: how many executions of every
 * replica are in {@code outcome_unknown} now (the state an operator must act on), counted by the
 * database on its partial index ({@link Schema}, version 3). A read returns the last count at once
 * and, when that count is older than {@code maxAgeNanos}, starts one new count in the background
 * (never more than one at a time), so a scrape never waits on the database and an idle process
 * sends no query: the value a scrape shows is at most one scrape (or {@code maxAge}) old. A count
 * that fails keeps the last value. Thread-safe.
 */
final class UnknownCount {
  private final Db db;
  private final long maxAgeNanos;
  private final BooleanSupplier closed;
  private final AtomicBoolean counting = new AtomicBoolean();
  private volatile long value;
  private volatile long countedAt;
  private volatile boolean counted;

  UnknownCount(Db db, long maxAgeNanos, BooleanSupplier closed) {
    this.db = db;
    this.maxAgeNanos = maxAgeNanos;
    this.closed = closed;
  }

  /** The last count; starts a new one when it is due. */
  long read() {
    if (!counted || System.nanoTime() - countedAt >= maxAgeNanos) {
      refresh();
    }
    return value;
  }

  /** Starts a count unless one is running or the store is closed. */
  void refresh() {
    if (closed.getAsBoolean() || !counting.compareAndSet(false, true)) {
      return;
    }
    long started = System.nanoTime();
    db.runQuietly(Sql.COUNT_OUTCOME_UNKNOWN, Tuple.tuple())
        .onComplete(
            ar -> {
              if (ar.succeeded()) {
                value = ar.result().iterator().next().getLong(0);
                countedAt = started;
                counted = true;
              }
              counting.set(false);
            });
  }
}
