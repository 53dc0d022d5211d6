package dev.tally.store.postgres;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.Tuple;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Runs the store's prepared statements on the pool: one statement, one round trip, each bounded by
 * the time to get a connection plus the statement timeout, counted, and failed with a {@link
 * dev.tally.core.store.StoreException} from {@link Failures}. Every outcome feeds {@link
 * #writable()}: an outage turns it false, a success true.
 *
 * <p>The server cancels a statement after the statement timeout ({@code statement_timeout}), and a
 * cancelled statement changed nothing. The client's own bound, getting a connection plus the
 * statement timeout, fires first only when the server cannot be heard at all (a dead network); a
 * write may then still commit, and the caller, told {@code UNAVAILABLE}, must treat it as not done:
 * the gate refuses the call, and a record left behind is found by the next retry.
 */
final class Db {
  private final Vertx vertx;
  private final Pool pool;
  private final Failures failures;
  private final long timeoutMillis;
  private final LongAdder statements = new LongAdder();
  private final LongAdder failed = new LongAdder();
  private final AtomicLong lastSuccessNanos = new AtomicLong(System.nanoTime());
  private volatile boolean up = true;

  Db(Vertx vertx, Pool pool, Failures failures, long timeoutMillis) {
    this.vertx = vertx;
    this.pool = pool;
    this.failures = failures;
    this.timeoutMillis = timeoutMillis;
  }

  /** Runs {@code sql} with {@code params}: one round trip, counted in {@link #statements()}. */
  Future<RowSet<Row>> run(String sql, Tuple params) {
    statements.increment();
    return bounded(pool.preparedQuery(sql).execute(params));
  }

  /** Runs {@code sql} without counting it as store work (health checks, polls). */
  Future<RowSet<Row>> runQuietly(String sql, Tuple params) {
    return bounded(pool.preparedQuery(sql).execute(params));
  }

  /** {@code f} bounded by the statement timeout, its failure mapped; for other work on the pool. */
  <T> Future<T> bounded(Future<T> f) {
    Promise<T> p = Promise.promise();
    long timer =
        vertx.setTimer(
            timeoutMillis,
            t ->
                p.tryFail(
                    failures.unavailable(
                        "no answer within " + timeoutMillis + " ms; a write may still commit",
                        null)));
    f.onComplete(
        ar -> {
          vertx.cancelTimer(timer);
          if (ar.succeeded()) {
            p.tryComplete(ar.result());
          } else {
            p.tryFail(failures.map(ar.cause()));
          }
        });
    return p.future()
        .andThen(
            ar -> {
              if (ar.succeeded()) {
                succeeded();
              } else if (Failures.isOutage(ar.cause())) {
                failed.increment();
                up = false;
              }
            });
  }

  /** Records that the database answered. */
  void succeeded() {
    lastSuccessNanos.set(System.nanoTime());
    up = true;
  }

  /** Records an outage seen elsewhere (the listener, a health check). */
  void down() {
    up = false;
  }

  boolean writable() {
    return up;
  }

  /** Nanoseconds since the database last answered. */
  long sinceLastSuccessNanos() {
    return System.nanoTime() - lastSuccessNanos.get();
  }

  Failures failures() {
    return failures;
  }

  long statements() {
    return statements.sum();
  }

  long outages() {
    return failed.sum();
  }

  Pool pool() {
    return pool;
  }

  Future<Void> close() {
    return pool.close();
  }
}
