package dev.tally.store.postgres;

import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.store.ExecutionQuery;
import dev.tally.core.store.Page;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The store's reads and its purge, one statement each. Records read by id or as a key's holder are
 * handed to {@link Writer#remember} so a transition that follows needs no read of its own. Every
 * "now" is compared in database time, and records come back in the caller's ({@link
 * DatabaseClock}).
 */
final class Reads implements ChangeFeed.Reader {
  /** The most rows one purge statement deletes. */
  static final int PURGE_BATCH = 200;

  private final Db db;
  private final Writer writer;
  private final DatabaseClock clock;

  Reads(Db db, Writer writer, DatabaseClock clock) {
    this.db = db;
    this.writer = writer;
    this.clock = clock;
  }

  @Override
  public Future<Optional<Execution>> find(ExecutionId id) {
    return db.run(Sql.FIND, Tuple.of(id.value()))
        .map(
            rows -> {
              if (rows.size() == 0) {
                return Optional.empty();
              }
              Execution e = Rows.execution(rows.iterator().next(), 0, clock);
              writer.remember(e);
              return Optional.of(e);
            });
  }

  /** Polls: every record among {@code ids} that exists; not counted as store work. */
  @Override
  public Future<List<Execution>> findAll(List<ExecutionId> ids) {
    String[] values = ids.stream().map(ExecutionId::value).toArray(String[]::new);
    return db.runQuietly(Sql.FIND_MANY, Tuple.of((Object) values)).map(this::records);
  }

  Future<Optional<Execution>> holder(String matchKey, Instant now) {
    Instant at = Rows.micros(now);
    return db.run(Sql.FIND_HOLDER, Tuple.of(SqlText.encode(matchKey), clock.toDatabase(at)))
        .map(
            rows -> {
              for (Row r : rows) {
                Execution e = Rows.execution(r, 0, clock);
                if (e.holdsKey(at)) {
                  writer.remember(e);
                  return Optional.of(e);
                }
              }
              return Optional.empty();
            });
  }

  Future<Optional<byte[]>> result(ExecutionId id) {
    return db.run(Sql.RESULT, Tuple.of(id.value()))
        .map(
            rows -> {
              if (rows.size() == 0) {
                return Optional.empty();
              }
              Buffer b = rows.iterator().next().getBuffer(0);
              return b == null ? Optional.empty() : Optional.of(b.getBytes());
            });
  }

  Future<List<Execution>> lapsed(Instant now, int limit) {
    return db.run(Sql.LAPSED, Tuple.of(clock.toDatabase(now), limit(limit))).map(this::records);
  }

  /**
   * One more record than the page holds is asked for, so {@code next} is null exactly at the end.
   */
  Future<Page> list(ExecutionQuery query) {
    Tuple p =
        Tuple.of(
            query.state() == null ? null : query.state().wireName(),
            SqlText.encode(query.tool()),
            SqlText.encode(query.actor()),
            query.before(),
            query.limit() + 1);
    return db.run(Sql.LIST, p)
        .map(
            rows -> {
              List<Execution> items = records(rows);
              boolean more = items.size() > query.limit();
              List<Execution> page = more ? items.subList(0, query.limit()) : items;
              return new Page(page, more ? page.get(page.size() - 1).id().value() : null);
            });
  }

  /**
   * Deletes up to {@code limit} records in batches of at most {@value #PURGE_BATCH}, each its own
   * short statement, so no lock is held for long whatever the caller asks for.
   */
  Future<Integer> purge(Instant now, int limit) {
    return purge(clock.toDatabase(now), limit(limit), 0);
  }

  private Future<Integer> purge(OffsetDateTime now, int remaining, int done) {
    int batch = Math.min(remaining, PURGE_BATCH);
    if (batch == 0) {
      return Future.succeededFuture(done);
    }
    return db.run(Sql.PURGE, Tuple.of(now, batch))
        .compose(
            rows -> {
              int deleted = (int) (long) rows.iterator().next().getLong(0);
              return deleted < batch
                  ? Future.succeededFuture(done + deleted)
                  : purge(now, remaining - deleted, done + deleted);
            });
  }

  private List<Execution> records(Iterable<Row> rows) {
    List<Execution> out = new ArrayList<>();
    for (Row r : rows) {
      out.add(Rows.execution(r, 0, clock));
    }
    return out;
  }

  private static int limit(int limit) {
    if (limit < 0) {
      throw new IllegalArgumentException("limit: " + limit + " (expected: zero or more)");
    }
    return limit;
  }
}
