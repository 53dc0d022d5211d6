package dev.tally.store.postgres;

import dev.tally.core.store.StoreException;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.util.List;

/**
 * The store's tables, created and migrated by the store itself when it opens. Each migration runs
 * once, in order, and is recorded in {@code tally_schema_version}; all of them run in one
 * transaction that first takes {@code pg_advisory_xact_lock}, so replicas starting at the same time
 * migrate one after the other and the later ones find nothing left to do. Migrations are only ever
 * added, never edited: the tables are a format other people read.
 *
 * <p>Version 1:
 *
 * <ul>
 *   <li>{@code tally_executions}: one row per execution, the {@link
 *       dev.tally.core.execution.Execution} record in columns; {@code id} sorts bytewise ({@code
 *       COLLATE "C"}), as ULIDs do in Java; the result bytes in {@code result} ({@code bytea}).
 *   <li>{@code tally_holders}: one row per match key whose current holder may still hold it: the
 *       holder's id and its {@code hold_until}. Its primary key is what makes a claim atomic (see
 *       {@link PostgresExecutionStore}); a foreign key deletes it with its execution, so it never
 *       names a record that is gone.
 *   <li>A trigger that sends {@code NOTIFY tally_executions, '<id>:<version>'} (or {@code
 *       '<id>:gone'} for a deleted row) with every change, delivered when the change commits.
 * </ul>
 *
 * <p>Version 2: the trigger notifies inserts and updates only for sessions that do not set {@link
 * #NOTIFY_SETTING} to {@link #NOTIFY_AFTER_COMMIT}; stores of this release set it and notify after
 * their commits themselves ({@link Notifier}), because transactions that notify commit one at a
 * time. Deletes (retention purges) are still notified by the trigger.
 *
 * <p>Version 3: a partial index on the executions in {@code outcome_unknown}, which the operator's
 * gauge counts ({@code tally.outcome_unknown.current}).
 *
 * <p>The deadline columns ({@code hold_until} in both tables, {@code retain_until}, {@code
 * lease_expires_at}) hold database time ({@link DatabaseClock}); releases before that rule wrote
 * each replica's own time, which for a replica in sync with the database is the same value, so no
 * migration marks the change.
 */
final class Schema {
  /** The notification channel. */
  static final String CHANNEL = "tally_executions";

  /**
   * A session setting (sent when a store connects): with the value {@link #NOTIFY_AFTER_COMMIT},
   * the trigger leaves inserts and updates to the store's {@link Notifier}. Sessions without it
   * (releases before schema version 2, hand-made changes) are still notified by the trigger.
   */
  static final String NOTIFY_SETTING = "tally.notify";

  static final String NOTIFY_AFTER_COMMIT = "after_commit";

  /** The advisory lock key that serializes migrations ("tally" + schema). */
  static final long MIGRATION_LOCK = 0x74616c6c79_0001L;

  record Migration(int version, String description, String sql) {}

  static final List<Migration> MIGRATIONS =
      List.of(
          new Migration(
              1,
              "executions, holders, change notifications",
              """
              CREATE TABLE tally_executions (
                id               text COLLATE "C" PRIMARY KEY,
                version          bigint      NOT NULL CHECK (version >= 1),
                match_key        text        NOT NULL,
                match_kind       text        NOT NULL,
                actor            text        NOT NULL,
                tool             text        NOT NULL,
                tool_class       text        NOT NULL,
                fingerprint      text        NOT NULL,
                intent_scope     text        NOT NULL,
                state            text        NOT NULL,
                timeline         jsonb       NOT NULL,
                hold_until       timestamptz NOT NULL,
                retain_until     timestamptz NOT NULL,
                lease_owner      text,
                lease_expires_at timestamptz,
                target_status    integer,
                error_code       integer,
                error_message    text,
                result_size      integer,
                result_retained  boolean,
                result_is_error  boolean,
                result           bytea,
                awaiting_input   boolean     NOT NULL,
                summary          text        NOT NULL
              );
              CREATE INDEX tally_executions_dispatched
                ON tally_executions (id) WHERE state = 'dispatched';
              CREATE INDEX tally_executions_retain_until ON tally_executions (retain_until);
              CREATE TABLE tally_holders (
                match_key    text PRIMARY KEY,
                execution_id text COLLATE "C" NOT NULL
                  REFERENCES tally_executions (id) ON DELETE CASCADE,
                hold_until   timestamptz NOT NULL
              );
              CREATE FUNCTION tally_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
              BEGIN
                IF TG_OP = 'DELETE' THEN
                  PERFORM pg_notify('tally_executions', OLD.id || ':gone');
                  RETURN OLD;
                END IF;
                PERFORM pg_notify('tally_executions', NEW.id || ':' || NEW.version);
                RETURN NEW;
              END
              $$;
              CREATE TRIGGER tally_executions_notify
                AFTER INSERT OR UPDATE OR DELETE ON tally_executions
                FOR EACH ROW EXECUTE FUNCTION tally_notify_change();
              """),
          new Migration(
              2,
              "inserts and updates notified after commit by the store itself",
              """
              CREATE OR REPLACE FUNCTION tally_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
              BEGIN
                IF TG_OP = 'DELETE' THEN
                  PERFORM pg_notify('tally_executions', OLD.id || ':gone');
                  RETURN OLD;
                END IF;
                IF current_setting('%s', true) = '%s' THEN
                  RETURN NEW;
                END IF;
                PERFORM pg_notify('tally_executions', NEW.id || ':' || NEW.version);
                RETURN NEW;
              END
              $$;
              """
                  .formatted(NOTIFY_SETTING, NOTIFY_AFTER_COMMIT)),
          new Migration(
              3,
              "an index on the executions in outcome_unknown, for the operator's gauge",
              """
              CREATE INDEX tally_executions_outcome_unknown
                ON tally_executions (id) WHERE state = 'outcome_unknown';
              """));

  /** The newest version this release knows. */
  static final int LATEST = MIGRATIONS.get(MIGRATIONS.size() - 1).version();

  private Schema() {}

  /**
   * Brings the database to {@link #LATEST}; completes with the version found before migrating.
   * Fails with {@link StoreException.Code#CORRUPT} if the database is newer than this release.
   */
  static Future<Integer> migrate(Pool pool) {
    return pool.withTransaction(
        conn ->
            conn.preparedQuery("SELECT pg_advisory_xact_lock($1)")
                .execute(Tuple.of(MIGRATION_LOCK))
                .compose(
                    v ->
                        conn.query(
                                "CREATE TABLE IF NOT EXISTS tally_schema_version ("
                                    + " version integer PRIMARY KEY,"
                                    + " description text NOT NULL,"
                                    + " applied_at timestamptz NOT NULL DEFAULT now())")
                            .execute())
                .compose(
                    v ->
                        conn.query("SELECT coalesce(max(version), 0) FROM tally_schema_version")
                            .execute())
                .compose(
                    rows -> {
                      Row row = rows.iterator().next();
                      int found = row.getInteger(0);
                      if (found > LATEST) {
                        return Future.failedFuture(
                            new StoreException(
                                StoreException.Code.CORRUPT,
                                "the database schema is at version "
                                    + found
                                    + "; this release knows versions up to "
                                    + LATEST
                                    + " (upgrade Tally)"));
                      }
                      return apply(conn, found).map(found);
                    }));
  }

  private static Future<Void> apply(SqlConnection conn, int found) {
    Future<Void> chain = Future.succeededFuture();
    for (Migration m : MIGRATIONS) {
      if (m.version() > found) {
        chain =
            chain
                .compose(v -> conn.query(m.sql()).execute())
                .compose(
                    v ->
                        conn.preparedQuery(
                                "INSERT INTO tally_schema_version (version, description)"
                                    + " VALUES ($1, $2)")
                            .execute(Tuple.of(m.version(), m.description())))
                .mapEmpty();
      }
    }
    return chain;
  }
}
