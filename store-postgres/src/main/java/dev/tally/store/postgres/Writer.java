package dev.tally.store.postgres;

import com.github.benmanes.caffeine.cache.Cache;
import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.execution.Lease;
import dev.tally.core.execution.ResultRef;
import dev.tally.core.execution.RpcError;
import dev.tally.core.execution.Transition;
import dev.tally.core.store.Claim;
import dev.tally.core.store.StoreException;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.Tuple;
import java.time.Instant;
import java.util.function.Consumer;

/**
 * The store's writes: claim, transition and touch, each one statement in the common case. A
 * transition is checked against the state machine in Java ({@link Execution#apply}) on the record
 * at the expected version, taken from the cache of records this store last wrote or read, or read
 * first on a miss; the statement then writes the new values as compare-and-set on the version.
 */
final class Writer {
  private static final int CLAIM_ATTEMPTS = 3;

  private final Db db;
  private final Cache<ExecutionId, Execution> cache;
  private final Consumer<Execution> changed;
  private final Notifier notifier;
  private final int maxResultBytes;
  private final DatabaseClock clock;

  /**
   * {@code changed} hears of every record this writer stored (to wake local waiters); {@code
   * notifier} tells the other replicas about committed transitions and touches; {@code clock} turns
   * deadlines into database time and back.
   */
  Writer(
      Db db,
      Cache<ExecutionId, Execution> cache,
      Consumer<Execution> changed,
      Notifier notifier,
      int maxResultBytes,
      DatabaseClock clock) {
    this.db = db;
    this.cache = cache;
    this.changed = changed;
    this.notifier = notifier;
    this.maxResultBytes = maxResultBytes;
    this.clock = clock;
  }

  void remember(Execution e) {
    cache.asMap().merge(e.id(), e, (old, now) -> now.version() >= old.version() ? now : old);
  }

  Future<Claim> claim(Execution candidate, Instant now) {
    return claim(Rows.normalize(candidate), Rows.micros(now), 1);
  }

  private Future<Claim> claim(Execution c, Instant now, int attempt) {
    Tuple p =
        Tuple.tuple()
            .addValue(SqlText.encode(c.matchKey()))
            .addValue(c.id().value())
            .addValue(clock.toDatabase(c.holdUntil()))
            .addValue(clock.toDatabase(now))
            .addValue(c.version())
            .addValue(Rows.wire(c.matchKind()))
            .addValue(SqlText.encode(c.actor()))
            .addValue(SqlText.encode(c.tool()))
            .addValue(c.toolClass().wireName())
            .addValue(SqlText.encode(c.fingerprint()))
            .addValue(SqlText.encode(c.intentScope()))
            .addValue(c.state().wireName())
            .addValue(Rows.timeline(c.timeline()))
            .addValue(clock.toDatabase(c.retainUntil()))
            .addValue(c.lease() == null ? null : SqlText.encode(c.lease().owner()))
            .addValue(c.lease() == null ? null : clock.toDatabase(c.lease().expiresAt()))
            .addValue(c.targetStatus())
            .addValue(c.error() == null ? null : c.error().code())
            .addValue(c.error() == null ? null : SqlText.encode(c.error().message()))
            .addValue(c.result() == null ? null : c.result().bytes())
            .addValue(c.result() == null ? null : c.result().retained())
            .addValue(c.result() == null ? null : c.result().isError())
            .addValue(c.awaitingInput())
            .addValue(SqlText.encode(c.summary()));
    return db.run(Sql.CLAIM, p)
        .compose(
            rows -> {
              Row r = rows.iterator().next();
              if (r.getLong(1) > 0) {
                remember(c);
                return Future.succeededFuture(new Claim.Won(c));
              }
              if (r.getString(2) != null) {
                Execution holder = Rows.execution(r, 2, clock);
                remember(holder);
                return Future.succeededFuture(new Claim.Existing(holder));
              }
              // The holder committed after this statement's snapshot: read it afresh.
              ExecutionId holderId = ExecutionId.parse(r.getString(0));
              return db.run(Sql.FIND, Tuple.of(holderId.value()))
                  .compose(
                      again -> {
                        if (again.size() > 0) {
                          Execution holder = Rows.execution(again.iterator().next(), 0, clock);
                          remember(holder);
                          return Future.succeededFuture(new Claim.Existing(holder));
                        }
                        if (attempt < CLAIM_ATTEMPTS) {
                          return claim(c, now, attempt + 1);
                        }
                        return Future.failedFuture(
                            db.failures()
                                .unavailable(
                                    "the holder of a match key changed under "
                                        + CLAIM_ATTEMPTS
                                        + " claims in a row",
                                    null));
                      });
            });
  }

  Future<Execution> transition(Transition t) {
    Execution cached = cache.getIfPresent(t.id());
    Future<Execution> current =
        cached != null && cached.version() == t.expectedVersion()
            ? Future.succeededFuture(cached)
            : db.run(Sql.FIND, Tuple.of(t.id().value()))
                .map(rows -> expected(t.id(), t.expectedVersion(), rows));
    return current.compose(cur -> write(cur, t));
  }

  private Future<Execution> write(Execution current, Transition t) {
    Transition effective =
        t.asStored(maxResultBytes, current.result() != null && current.result().retained());
    boolean replaceBytes = t.resultBytes() != null;
    byte[] kept = replaceBytes && effective.result().retained() ? t.resultBytes() : null;
    Execution next = Rows.normalize(current.apply(effective));
    boolean release = mayHoldKey(current) && !mayHoldKey(next);
    Lease lease = next.lease();
    RpcError error = next.error();
    ResultRef result = next.result();
    Tuple p =
        Tuple.tuple()
            .addValue(next.id().value())
            .addValue(t.expectedVersion())
            .addValue(next.version())
            .addValue(next.state().wireName())
            .addValue(Rows.timeline(next.timeline()))
            .addValue(clock.toDatabase(next.retainUntil()))
            .addValue(lease == null ? null : SqlText.encode(lease.owner()))
            .addValue(lease == null ? null : clock.toDatabase(lease.expiresAt()))
            .addValue(next.targetStatus())
            .addValue(error == null ? null : error.code())
            .addValue(error == null ? null : SqlText.encode(error.message()))
            .addValue(result == null ? null : result.bytes())
            .addValue(result == null ? null : result.retained())
            .addValue(result == null ? null : result.isError())
            .addValue(replaceBytes)
            .addValue(kept == null ? null : Buffer.buffer(kept))
            .addValue(release)
            .addValue(next.awaitingInput())
            .addValue(clock.toDatabase(next.holdUntil()));
    return db.run(Sql.TRANSITION, p)
        .compose(
            rows -> {
              if (rows.iterator().next().getLong(0) == 1) {
                remember(next);
                changed.accept(next);
                notifier.changed(current.state(), next);
                return Future.succeededFuture(next);
              }
              cache.invalidate(t.id());
              return lost(t.id(), t.expectedVersion());
            });
  }

  Future<Execution> touch(ExecutionId id, long expectedVersion, Lease lease, boolean awaiting) {
    Tuple p =
        Tuple.of(
            id.value(),
            expectedVersion,
            lease == null ? null : SqlText.encode(lease.owner()),
            lease == null ? null : clock.toDatabase(lease.expiresAt()),
            awaiting);
    return db.run(Sql.TOUCH, p)
        .compose(
            rows -> {
              if (rows.size() == 0) {
                cache.invalidate(id);
                return lost(id, expectedVersion);
              }
              Execution next = Rows.execution(rows.iterator().next(), 0, clock);
              remember(next);
              changed.accept(next);
              notifier.changed(next.state(), next);
              return Future.succeededFuture(next);
            });
  }

  /** Why a compare-and-set changed nothing: the record is gone, or at another version. */
  private Future<Execution> lost(ExecutionId id, long expectedVersion) {
    return db.run(Sql.VERSION, Tuple.of(id.value()))
        .map(
            rows -> {
              if (rows.size() == 0) {
                throw notFound(id);
              }
              throw stale(id, rows.iterator().next().getLong(0), expectedVersion);
            });
  }

  private Execution expected(ExecutionId id, long expectedVersion, RowSet<Row> rows) {
    if (rows.size() == 0) {
      throw notFound(id);
    }
    Execution e = Rows.execution(rows.iterator().next(), 0, clock);
    if (e.version() != expectedVersion) {
      throw stale(id, e.version(), expectedVersion);
    }
    return e;
  }

  static StoreException notFound(ExecutionId id) {
    return new StoreException(StoreException.Code.NOT_FOUND, "no execution " + id);
  }

  private static StoreException stale(ExecutionId id, long actual, long expected) {
    return new StoreException(
        StoreException.Code.STALE_VERSION,
        "execution " + id + " is at version " + actual + ", not " + expected);
  }

  /** Whether the record can hold its key at some instant (see {@link Sql#MAY_HOLD}). */
  static boolean mayHoldKey(Execution e) {
    return !e.state().releasesKey();
  }
}
