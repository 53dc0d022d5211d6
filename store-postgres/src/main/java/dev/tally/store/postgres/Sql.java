package dev.tally.store.postgres;

import dev.tally.core.execution.ExecutionState;
import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * The store's statements, each sent as one prepared statement (one round trip). The rule of {@link
 * dev.tally.core.execution.Execution#holdsKey} appears in SQL once, as {@link #HOLDS}, built from
 * the state machine's own enum so the two cannot drift apart. Every deadline column ({@code
 * hold_until}, {@code retain_until}, {@code lease_expires_at}) and every "now" compared with one is
 * in database time ({@link DatabaseClock}).
 */
final class Sql {
  private Sql() {}

  /**
   * Whether the row in alias {@code e} may hold its key by state: not a releasing state, and not a
   * fingerprint match that was delivered.
   */
  static final String MAY_HOLD =
      "(e.state NOT IN ("
          + Arrays.stream(ExecutionState.values())
              .filter(ExecutionState::releasesKey)
              .map(s -> "'" + s.wireName() + "'")
              .collect(Collectors.joining(", "))
          + "))";

  /** The executions in {@code outcome_unknown} now, of every replica (the partial index). */
  static final String COUNT_OUTCOME_UNKNOWN =
      "SELECT count(*) FROM tally_executions WHERE state = '"
          + ExecutionState.OUTCOME_UNKNOWN.wireName()
          + "'";

  /** {@link dev.tally.core.execution.Execution#holdsKey} at {@code $1} for the row in alias e. */
  static final String HOLDS = "(" + MAY_HOLD + " AND $1 < e.hold_until)";

  /**
   * The claim, one statement. {@code claim} inserts the holder row, or, when the key's row exists,
   * locks it and replaces it only if its holder stopped holding by time ({@code hold_until <=
   * now}); either way it returns the holder after the statement. The candidate's row is inserted
   * only if the holder is the candidate. The final select reads the existing holder's record in the
   * same round trip when the statement's snapshot can see it.
   *
   * <p>$1 match key, $2 id, $3 hold until, $4 now, $5.. the other columns.
   */
  static final String CLAIM =
      """
      WITH claim AS (
        INSERT INTO tally_holders AS h (match_key, execution_id, hold_until)
        VALUES ($1, $2, $3)
        ON CONFLICT (match_key) DO UPDATE SET
          execution_id = CASE WHEN h.hold_until <= $4
                              THEN excluded.execution_id ELSE h.execution_id END,
          hold_until = CASE WHEN h.hold_until <= $4
                            THEN excluded.hold_until ELSE h.hold_until END
        RETURNING h.execution_id
      ), inserted AS (
        INSERT INTO tally_executions (id, version, match_key, match_kind, actor, tool, tool_class,
          fingerprint, intent_scope, state, timeline, hold_until, retain_until, lease_owner,
          lease_expires_at, target_status, error_code, error_message, result_size,
          result_retained, result_is_error, awaiting_input, summary)
        SELECT $2::text, $5::bigint, $1::text, $6::text, $7::text, $8::text, $9::text, $10::text,
          $11::text, $12::text, $13::jsonb, $3::timestamptz, $14::timestamptz, $15::text,
          $16::timestamptz, $17::integer, $18::integer, $19::text, $20::integer, $21::boolean,
          $22::boolean, $23::boolean, $24::text
        FROM claim WHERE claim.execution_id = $2
        RETURNING id
      )
      SELECT c.execution_id, (SELECT count(*) FROM inserted) AS won, %s
      FROM claim c LEFT JOIN tally_executions e
        ON e.id = c.execution_id AND c.execution_id <> $2
      """
          .formatted(Rows.columns("e"));

  static final String FIND = "SELECT " + Rows.COLUMNS + " FROM tally_executions WHERE id = $1";

  static final String FIND_MANY =
      "SELECT " + Rows.COLUMNS + " FROM tally_executions WHERE id = ANY($1::text[])";

  static final String VERSION = "SELECT version FROM tally_executions WHERE id = $1";

  static final String RESULT = "SELECT result FROM tally_executions WHERE id = $1";

  /** $1 match key, $2 now. */
  static final String FIND_HOLDER =
      "SELECT "
          + Rows.columns("e")
          + " FROM tally_holders h JOIN tally_executions e ON e.id = h.execution_id"
          + " WHERE h.match_key = $1 AND h.hold_until > $2";

  /**
   * A transition as compare-and-set on the version, with the new column values computed in Java.
   * When the new state releases the key ($17), the holder row goes in the same statement; when the
   * hold was shortened ($19 hold until, e.g. a delivered execution's replay window), the holder
   * row's hold shrinks with it.
   *
   * <p>$1 id, $2 expected version, $3.. new values, $15 replace result bytes?, $16 bytes.
   */
  static final String TRANSITION =
      """
      WITH updated AS (
        UPDATE tally_executions SET version = $3, state = $4, timeline = $5::jsonb,
          retain_until = $6, lease_owner = $7, lease_expires_at = $8, target_status = $9,
          error_code = $10, error_message = $11, result_size = $12, result_retained = $13,
          result_is_error = $14,
          result = CASE WHEN $15::boolean THEN $16::bytea ELSE result END,
          awaiting_input = $18, hold_until = $19
        WHERE id = $1 AND version = $2
        RETURNING id, match_key
      ), released AS (
        DELETE FROM tally_holders h USING updated u
        WHERE $17::boolean AND h.match_key = u.match_key AND h.execution_id = u.id
      ), shortened AS (
        UPDATE tally_holders h SET hold_until = $19 FROM updated u
        WHERE NOT $17::boolean AND h.match_key = u.match_key AND h.execution_id = u.id
          AND h.hold_until > $19
      )
      SELECT count(*) FROM updated
      """;

  /** $1 id, $2 expected version, $3 lease owner, $4 lease expiry, $5 awaiting input. */
  static final String TOUCH =
      "UPDATE tally_executions SET version = version + 1, lease_owner = $3,"
          + " lease_expires_at = $4, awaiting_input = $5"
          + " WHERE id = $1 AND version = $2 RETURNING "
          + Rows.COLUMNS;

  /** $1 now, $2 limit. */
  static final String LAPSED =
      "SELECT "
          + Rows.COLUMNS
          + " FROM tally_executions WHERE state = '"
          + ExecutionState.DISPATCHED.wireName()
          + "' AND (lease_expires_at IS NULL OR lease_expires_at <= $1) ORDER BY id LIMIT $2";

  /** $1 state, $2 tool, $3 actor, $4 before (each null for any), $5 limit. */
  static final String LIST =
      "SELECT "
          + Rows.COLUMNS
          + " FROM tally_executions WHERE ($1::text IS NULL OR state = $1)"
          + " AND ($2::text IS NULL OR tool = $2) AND ($3::text IS NULL OR actor = $3)"
          + " AND ($4::text IS NULL OR id < $4) ORDER BY id DESC LIMIT $5";

  /**
   * Deletes a small batch of rows past retention that no longer hold their key, skipping rows
   * another transaction has locked; their holder rows, if any, go by the foreign key's cascade. $1
   * now, $2 limit.
   */
  static final String PURGE =
      """
      WITH doomed AS (
        SELECT e.id FROM tally_executions e
        WHERE e.retain_until < $1 AND NOT %s
        ORDER BY e.retain_until LIMIT $2
        FOR UPDATE SKIP LOCKED
      ), gone AS (
        DELETE FROM tally_executions e USING doomed d WHERE e.id = d.id RETURNING e.id
      )
      SELECT count(*) FROM gone
      """
          .formatted(HOLDS);

  static final String PING = "SELECT 1";

  /** The database's clock as it reads when the statement runs (not the transaction's start). */
  static final String CLOCK = "SELECT clock_timestamp()";

  /**
   * Announces committed changes, {@code $1} a text array of {@code <id>:<version>} payloads. The
   * transaction commits asynchronously ({@code synchronous_commit = off} for it alone): it holds
   * PostgreSQL's notify lock through its commit, and a notification needs no durability.
   */
  static final String NOTIFY =
      """
      WITH async AS (SELECT set_config('synchronous_commit', 'off', true))
      SELECT count(pg_notify('%s', p)) FROM async, unnest($1::text[]) AS p
      """
          .formatted(Schema.CHANNEL);
}
