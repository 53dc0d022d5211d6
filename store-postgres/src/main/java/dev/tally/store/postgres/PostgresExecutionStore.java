package dev.tally.store.postgres;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.execution.Lease;
import dev.tally.core.execution.Transition;
import dev.tally.core.observe.Meter;
import dev.tally.core.store.Claim;
import dev.tally.core.store.ExecutionQuery;
import dev.tally.core.store.ExecutionStore;
import dev.tally.core.store.Page;
import dev.tally.core.store.StoreException;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * An {@link ExecutionStore} in PostgreSQL, for several replicas sharing one database ({@code
 * --store postgres://USER:PASSWORD@HOST:PORT/DB}; ARCHITECTURE.md §8). Non-blocking on the Vert.x
 * PostgreSQL client with a pool of connections and prepared statements. A stage completes once the
 * change is committed. Open it with {@link #open(Vertx, PostgresStoreOptions)}; it creates and
 * migrates its tables itself (see {@link Schema}).
 *
 * <p><b>Atomic claim.</b> Whether a record holds its match key depends on time ({@code hold_until})
 * as well as state, so no partial unique index over {@code tally_executions} can say "one holder
 * per key". A separate table {@code tally_holders}, keyed by match key, names the current holder
 * and its {@code hold_until}; a holder row exists only while its record may hold by state (the
 * transition that releases the key deletes the row in the same statement). A claim is one
 * statement: {@code INSERT INTO tally_holders … ON CONFLICT (match_key) DO UPDATE} that replaces
 * the holder only when {@code hold_until <= now}, then inserts the candidate's row only if the
 * holder row now names the candidate, and selects the existing holder's record. The primary key
 * serializes concurrent claims on one key: exactly one replaces or inserts the holder row; the
 * others wait for its lock and then see the winner. If the winner committed after a loser's
 * statement began, the loser cannot see the winner's record in the same statement and reads it with
 * a second one.
 *
 * <p><b>Transitions</b> are compare-and-set on the {@code version} column ({@code UPDATE … WHERE id
 * = $1 AND version = $2}). The state machine is checked in Java by {@link Execution#apply} on the
 * record at the expected version, which comes from a bounded cache of the records this store last
 * wrote or read; on a miss it is read first. Since a version names exactly one content of a record,
 * a cached record at the expected version is the stored one whenever the update succeeds. When no
 * row changes, one more read tells {@code STALE_VERSION} from {@code NOT_FOUND}.
 *
 * <p><b>Deadlines on one clock.</b> Leases, holds and retention are compared across replicas, whose
 * clocks may disagree: compared on each replica's own clock, 20 s of skew would let the replica
 * that is ahead reap another's live call (its lease looks lapsed) or claim a key another still
 * holds. So the store keeps {@code lease_expires_at}, {@code hold_until} and {@code retain_until}
 * in database time: it measures the offset of PostgreSQL's {@code clock_timestamp()} from its wall
 * clock ({@link PostgresStoreOptions#wallClock()}, the system clock) when it opens and every {@code
 * clockInterval}, adds the offset to every deadline it writes and to every "now" it compares in SQL
 * ({@link #lapsed}, the claim, {@link #findHolder}, {@link #purge}), and subtracts it from every
 * deadline it reads back, so its callers ({@link dev.tally.core.execution.Execution#leaseLapsed},
 * {@link dev.tally.core.execution.Execution#holdsKey}) compare in their own time what the database
 * compares in its own. The callers' instants are only shifted, so a gate on a test clock sees its
 * leases lapse when it moves its clock past them. The timeline is stored as given. An offset beyond
 * {@code clockSkewWarning} is logged as a WARNING. See {@link DatabaseClock} for how the offset is
 * measured and when it moves.
 *
 * <p><b>Round trips.</b> Claim, transition (cache hit) and touch take one each; every statement is
 * counted in {@link #stats()}; the batched notifications below are counted apart.
 *
 * <p><b>Changes across replicas.</b> After a transition or touch of a record that may be waited on
 * (no outcome yet) committed, the store sends {@code NOTIFY tally_executions, '<id>:<version>'},
 * batched and off the caller's path ({@link Notifier}); deletes are notified by a trigger. Each
 * store listens on one extra connection that reconnects by itself; while it is down or
 * notifications are disabled, waiting {@link #awaitChange} calls poll every {@code pollInterval}.
 * Changes this store makes wake its own waiters at once.
 *
 * <p><b>Outages</b> fail closed: a statement that fails for lack of a connection, a server shutting
 * down, or no answer within the statement timeout completes with {@link
 * StoreException.Code#UNAVAILABLE}, and {@link #isWritable()} turns false until a statement or the
 * periodic {@code SELECT 1} succeeds again. The pool opens new connections on demand, so the store
 * recovers by itself when the database is back. The password is never logged nor put in a message.
 */
public final class PostgresExecutionStore implements ExecutionStore {
  private static final System.Logger LOG = System.getLogger(PostgresExecutionStore.class.getName());

  /** How often the listening connection is pinged, at least, to notice that it died silently. */
  private static final long LISTENER_PING_MILLIS = 5_000;

  private final Vertx vertx;
  private final boolean ownsVertx;
  private final PostgresStoreOptions options;
  private final Db db;
  private final Writer writer;
  private final Notifier notifier;
  private final Reads reads;
  private final ChangeFeed feed;
  private final Listener listener;
  private final long healthTimer;
  private final DatabaseClock clock;
  private final ClockProbe probe;
  private final long clockTimer;
  private final UnknownCount unknown;
  private volatile boolean closed;

  private PostgresExecutionStore(
      Vertx vertx,
      boolean ownsVertx,
      PostgresStoreOptions options,
      Db db,
      PgConnectOptions co,
      DatabaseClock clock,
      ClockProbe probe) {
    this.vertx = vertx;
    this.ownsVertx = ownsVertx;
    this.options = options;
    this.db = db;
    this.clock = clock;
    this.probe = probe;
    Cache<ExecutionId, Execution> cache =
        Caffeine.newBuilder().maximumSize(options.recordCacheSize()).build();
    this.listener =
        options.notifications()
            ? new Listener(
                vertx,
                co,
                options.target().describe(),
                this::notified,
                this::caughtUp,
                options.reconnectInterval().toMillis(),
                Math.max(LISTENER_PING_MILLIS, options.healthInterval().toMillis()),
                options.connectTimeout().toMillis() + options.statementTimeout().toMillis())
            : null;
    this.notifier = new Notifier(db);
    this.writer = new Writer(db, cache, this::changed, notifier, options.maxResultBytes(), clock);
    this.reads = new Reads(db, writer, clock);
    this.feed =
        new ChangeFeed(
            vertx,
            new ChangeFeed.Reader() {
              @Override
              public Future<Optional<Execution>> find(ExecutionId id) {
                return closed ? Future.failedFuture(closedError()) : reads.find(id);
              }

              @Override
              public Future<List<Execution>> findAll(List<ExecutionId> ids) {
                return closed ? Future.failedFuture(closedError()) : reads.findAll(ids);
              }
            },
            () -> listener != null && listener.listening(),
            options.pollInterval());
    this.unknown = new UnknownCount(db, options.healthInterval().toNanos(), () -> closed);
    unknown.refresh();
    this.healthTimer = vertx.setPeriodic(options.healthInterval().toMillis(), t -> checkHealth());
    this.clockTimer =
        vertx.setPeriodic(
            options.clockInterval().toMillis(),
            t -> {
              if (!closed) {
                probe.measure(db); // a failed round keeps the offset; outages show elsewhere
              }
            });
  }

  /**
   * Opens the store on {@code vertx}: connects, creates or migrates the tables, starts listening
   * for changes. Fails with {@link StoreException.Code#UNAVAILABLE} if the database cannot be
   * reached, or {@link StoreException.Code#CORRUPT} if its schema is newer than this release.
   */
  public static CompletionStage<PostgresExecutionStore> open(
      Vertx vertx, PostgresStoreOptions options) {
    return open(vertx, false, options);
  }

  /**
   * Opens the store on a Vert.x instance of its own (two event loops), closed with the store; for
   * callers that have none yet.
   */
  public static CompletionStage<PostgresExecutionStore> open(PostgresStoreOptions options) {
    Vertx vertx =
        Vertx.vertx(new io.vertx.core.VertxOptions().setEventLoopPoolSize(2).setWorkerPoolSize(1));
    return open(vertx, true, options)
        .whenComplete(
            (store, error) -> {
              if (error != null) {
                vertx.close();
              }
            });
  }

  /**
   * Opens a store for a {@code --store postgres://…} URL on a Vert.x instance of its own and waits
   * for it, at most {@code timeout}; for process start-up, never on an event loop. Throws {@link
   * IllegalArgumentException} for a bad URL (naming the part, never the password) and {@link
   * StoreException} when the store cannot open.
   */
  public static PostgresExecutionStore openBlocking(
      String url, int maxResultBytes, Duration timeout) {
    PostgresStoreOptions options =
        PostgresStoreOptions.fromUrl(url).withMaxResultBytes(maxResultBytes);
    CompletableFuture<PostgresExecutionStore> opening = open(options).toCompletableFuture();
    try {
      return opening.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException re) {
        throw re;
      }
      throw new StoreException(
          StoreException.Code.UNAVAILABLE,
          "could not open the PostgreSQL store " + options.target().describe(),
          e.getCause());
    } catch (TimeoutException e) {
      opening.thenAccept(PostgresExecutionStore::close);
      throw new StoreException(
          StoreException.Code.UNAVAILABLE,
          "the PostgreSQL store "
              + options.target().describe()
              + " did not open within "
              + timeout.toMillis()
              + " ms");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      opening.thenAccept(PostgresExecutionStore::close);
      throw new StoreException(
          StoreException.Code.UNAVAILABLE, "interrupted while opening the PostgreSQL store");
    }
  }

  private static CompletionStage<PostgresExecutionStore> open(
      Vertx vertx, boolean owns, PostgresStoreOptions options) {
    Objects.requireNonNull(vertx, "vertx");
    Objects.requireNonNull(options, "options");
    PgConnectOptions co = Connections.connectOptions(options);
    Pool pool = Connections.pool(vertx, options, co);
    Failures failures = new Failures(options.target());
    Db db =
        new Db(
            vertx,
            pool,
            failures,
            options.connectTimeout().toMillis() + options.statementTimeout().toMillis());
    long budget = options.connectTimeout().toMillis() + 4 * options.statementTimeout().toMillis();
    Db opening = new Db(vertx, pool, failures, budget);
    DatabaseClock clock = new DatabaseClock();
    ClockProbe probe =
        new ClockProbe(
            clock, options.wallClock(), options.clockSkewWarning(), options.target().describe());
    Future<PostgresExecutionStore> opened =
        opening
            .bounded(Schema.migrate(pool))
            .compose(found -> probe.measure(opening).map(found))
            .compose(
                found -> {
                  if (found < Schema.LATEST) {
                    LOG.log(
                        System.Logger.Level.INFO,
                        "migrated the schema of "
                            + options.target().describe()
                            + " from version "
                            + found
                            + " to "
                            + Schema.LATEST);
                  }
                  PostgresExecutionStore store =
                      new PostgresExecutionStore(vertx, owns, options, db, co, clock, probe);
                  return store.listener == null
                      ? Future.succeededFuture(store)
                      : store.listener.start().map(store);
                })
            .onFailure(e -> pool.close());
    return opened.toCompletionStage();
  }

  @Override
  public CompletionStage<Claim> claim(Execution candidate, Instant now) {
    return run(
        () ->
            writer.claim(
                Objects.requireNonNull(candidate, "candidate"),
                Objects.requireNonNull(now, "now")));
  }

  @Override
  public CompletionStage<Optional<Execution>> find(ExecutionId id) {
    return run(() -> reads.find(Objects.requireNonNull(id, "id")));
  }

  @Override
  public CompletionStage<Optional<Execution>> findHolder(String matchKey, Instant now) {
    return run(
        () ->
            reads.holder(
                Objects.requireNonNull(matchKey, "matchKey"), Objects.requireNonNull(now, "now")));
  }

  @Override
  public CompletionStage<Execution> transition(Transition t) {
    return run(() -> writer.transition(Objects.requireNonNull(t, "transition")));
  }

  @Override
  public CompletionStage<Execution> touch(
      ExecutionId id, long expectedVersion, Lease lease, boolean awaitingInput) {
    return run(
        () ->
            writer.touch(Objects.requireNonNull(id, "id"), expectedVersion, lease, awaitingInput));
  }

  @Override
  public CompletionStage<Optional<byte[]>> result(ExecutionId id) {
    return run(() -> reads.result(Objects.requireNonNull(id, "id")));
  }

  @Override
  public CompletionStage<Optional<Execution>> awaitChange(
      ExecutionId id, long afterVersion, Duration maxWait) {
    if (closed) {
      return CompletableFuture.failedFuture(closedError());
    }
    try {
      return feed.await(
          Objects.requireNonNull(id, "id"),
          afterVersion,
          Objects.requireNonNull(maxWait, "maxWait"));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  @Override
  public CompletionStage<List<Execution>> lapsed(Instant now, int limit) {
    return run(() -> reads.lapsed(Objects.requireNonNull(now, "now"), limit));
  }

  @Override
  public CompletionStage<Page> list(ExecutionQuery query) {
    return run(() -> reads.list(Objects.requireNonNull(query, "query")));
  }

  @Override
  public CompletionStage<Integer> purge(Instant now, int limit) {
    return run(() -> reads.purge(Objects.requireNonNull(now, "now"), limit));
  }

  @Override
  public int maxResultBytes() {
    return options.maxResultBytes();
  }

  /** Open, and the database answered the last statement or health check. */
  @Override
  public boolean isWritable() {
    return !closed && db.writable();
  }

  /**
   * The store's round trips, outages, notifications, the database clock's offset and the operator's
   * {@code outcome_unknown} gauge: on PostgreSQL the count of every replica's executions in that
   * state (each replica reports the same number), read as {@link UnknownCount} says.
   */
  @Override
  public void metrics(Meter m) {
    m.counter(
        "tally.store.round_trips",
        "statements sent to PostgreSQL for store operations, one round trip each",
        "",
        () -> stats().roundTrips());
    m.counter(
        "tally.store.notify_statements",
        "statements that announced committed changes to other replicas (batched, off the path)",
        "",
        () -> stats().notifyStatements());
    m.counter(
        "tally.store.outages",
        "store operations that failed because PostgreSQL was unavailable",
        "",
        () -> stats().outages());
    m.counter(
        "tally.store.notifications",
        "change notifications received from PostgreSQL",
        "",
        () -> stats().notifications());
    m.gauge(
        "tally.store.listening",
        "1 while the store receives change notifications",
        "",
        () -> stats().listening() ? 1 : 0);
    m.gauge(
        "tally.store.clock_offset",
        "PostgreSQL's clock minus this replica's wall clock, as the store measured it (leases,"
            + " holds and retention are compared on the database's clock)",
        "ms",
        () -> clock.offset().toMillis());
    m.gauge(
        "tally.outcome_unknown.current",
        "executions in outcome_unknown now: each needs a status check or an operator (PostgreSQL:"
            + " of every replica, counted at most one scrape or healthInterval ago)",
        "",
        unknown::read);
  }

  /** Counters since the store opened (round trips for the benchmark, outages, notifications). */
  public PostgresStoreStats stats() {
    return new PostgresStoreStats(
        db.statements(),
        notifier.statements(),
        db.outages(),
        feed.notifications(),
        feed.polls(),
        feed.waiting(),
        listener != null && listener.listening(),
        isWritable());
  }

  /**
   * The database's clock minus this replica's wall clock, as last measured (zero until a
   * measurement differed from zero by more than its uncertainty and {@code
   * DatabaseClock.TOLERANCE}; see the class comment, "Deadlines").
   */
  public Duration clockOffset() {
    return clock.offset();
  }

  /** What announces this store's changes to the other replicas (for tests). */
  Notifier notifier() {
    return notifier;
  }

  /** The options the store was opened with. */
  public PostgresStoreOptions options() {
    return options;
  }

  /**
   * Closes the store: pending waits and every later operation fail with {@code CLOSED}; the pool
   * and the listening connection close in the background.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    vertx.cancelTimer(healthTimer);
    vertx.cancelTimer(clockTimer);
    feed.close(closedError());
    if (listener != null) {
      listener.close();
    }
    Future<Void> pool = db.close();
    if (ownsVertx) {
      pool.onComplete(ar -> vertx.close());
    }
  }

  @Override
  public String toString() {
    return "PostgresExecutionStore[" + options.target().describe() + "]";
  }

  private void changed(Execution e) {
    feed.changed(e);
  }

  private void notified(String payload) {
    feed.notified(payload);
  }

  private void caughtUp() {
    db.succeeded();
    feed.catchUp();
  }

  private void checkHealth() {
    if (closed
        || (db.writable() && db.sinceLastSuccessNanos() < options.healthInterval().toNanos())) {
      return;
    }
    db.runQuietly(Sql.PING, Tuple.tuple());
  }

  private <T> CompletionStage<T> run(Supplier<Future<T>> operation) {
    if (closed) {
      return CompletableFuture.failedFuture(closedError());
    }
    Promise<T> out = Promise.promise();
    try {
      operation
          .get()
          .onComplete(
              ar -> {
                if (ar.succeeded()) {
                  out.complete(ar.result());
                } else {
                  out.fail(closed ? closedError() : db.failures().map(ar.cause()));
                }
              });
    } catch (RuntimeException e) {
      out.fail(e);
    }
    return out.future().toCompletionStage();
  }

  private static StoreException closedError() {
    return new StoreException(StoreException.Code.CLOSED, "the PostgreSQL store is closed");
  }
}
