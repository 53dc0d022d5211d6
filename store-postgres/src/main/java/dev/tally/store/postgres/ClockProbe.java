package dev.tally.store.postgres;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.sqlclient.Tuple;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Measures the {@link DatabaseClock}: one round is {@value #SAMPLES} {@code SELECT
 * clock_timestamp()} statements one after the other, bracketed by the store's wall clock, offered
 * to the clock together. Not counted as store work. Says in the log, never with a secret, when the
 * offset moves, when it exceeds {@code clockSkewWarning} (a replica whose time synchronization is
 * broken: its gate's own windows and timelines still use its clock), and when no round trip was
 * short enough to measure.
 */
final class ClockProbe {
  private static final System.Logger LOG = System.getLogger(PostgresExecutionStore.class.getName());

  /** Samples per round; the shortest round trip counts. */
  static final int SAMPLES = 3;

  private final DatabaseClock clock;
  private final Clock wall;
  private final Duration warnAbove;
  private final String target;
  private final AtomicBoolean running = new AtomicBoolean();
  private volatile boolean unmeasuredReported;

  /** {@code target} names the database in log lines (without its password). */
  ClockProbe(DatabaseClock clock, Clock wall, Duration warnAbove, String target) {
    this.clock = clock;
    this.wall = wall;
    this.warnAbove = warnAbove;
    this.target = target;
  }

  /**
   * One round on {@code db}; fails if a statement fails (the database is unreachable). A round
   * asked for while one runs is skipped and completes with {@code null}.
   */
  Future<DatabaseClock.Reading> measure(Db db) {
    if (!running.compareAndSet(false, true)) {
      return Future.succeededFuture();
    }
    return sample(db, new ArrayList<>())
        .map(
            samples -> {
              DatabaseClock.Reading r = clock.offer(samples);
              report(r);
              return r;
            })
        .andThen(ar -> running.set(false));
  }

  private Future<List<DatabaseClock.Sample>> sample(Db db, List<DatabaseClock.Sample> taken) {
    if (taken.size() == SAMPLES) {
      return Future.succeededFuture(taken);
    }
    Promise<List<DatabaseClock.Sample>> out = Promise.promise();
    Instant sent = wall.instant();
    db.runQuietly(Sql.CLOCK, Tuple.tuple())
        .onComplete(
            ar -> {
              if (ar.failed()) {
                out.fail(ar.cause());
                return;
              }
              Instant received = wall.instant();
              Instant database = ar.result().iterator().next().getOffsetDateTime(0).toInstant();
              taken.add(new DatabaseClock.Sample(sent, database, received));
              sample(db, taken).onComplete(out);
            });
    return out.future();
  }

  private void report(DatabaseClock.Reading r) {
    switch (r.outcome()) {
      case UNMEASURED -> {
        if (!unmeasuredReported) {
          unmeasuredReported = true;
          LOG.log(
              System.Logger.Level.WARNING,
              "could not measure the clock of the PostgreSQL store "
                  + target
                  + ": no round trip within "
                  + DatabaseClock.MAX_ROUND_TRIP.toMillis()
                  + " ms; deadlines keep the offset "
                  + millis(r.offset()));
        }
      }
      case CONFIRMED -> unmeasuredReported = false;
      case ADOPTED -> {
        unmeasuredReported = false;
        if (r.offset().abs().compareTo(warnAbove) > 0) {
          LOG.log(
              System.Logger.Level.WARNING,
              "the clock of this replica is "
                  + skew(r)
                  + " the database clock of the PostgreSQL store "
                  + target
                  + " (store.postgres.clockSkewWarning: "
                  + warnAbove.toMillis()
                  + " ms); leases, holds and retention are compared in database time, but fix"
                  + " this host's time synchronization: its own timelines and ids use its clock");
        } else {
          LOG.log(
              System.Logger.Level.INFO,
              "the clock of this replica is " + skew(r) + " the database clock of " + target);
        }
      }
    }
  }

  /** "20003.1 ms ahead of (±0.4 ms)": the offset is database minus wall. */
  private static String skew(DatabaseClock.Reading r) {
    String side = r.offset().isNegative() ? " ahead of" : " behind";
    return millis(r.offset().abs()) + " (±" + millis(r.uncertainty()) + ")" + side;
  }

  private static String millis(Duration d) {
    return String.format(Locale.ROOT, "%.1f ms", d.toNanos() / 1e6);
  }
}
