package dev.tally.store.postgres;

import dev.tally.core.contract.ToolClass;
import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.execution.Lease;
import dev.tally.core.execution.MatchKind;
import dev.tally.core.execution.ResultRef;
import dev.tally.core.execution.RpcError;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Row;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

/**
 * Maps an {@link Execution} to the columns of {@code tally_executions} and back. Text columns go
 * through {@link SqlText}; instants are kept to the microsecond (PostgreSQL's {@code timestamptz}),
 * so the store {@link #normalize normalizes} every record before it writes one and what it returns
 * is what it stored. Deadlines are stored in database time and read back in the caller's ({@link
 * DatabaseClock}); the timeline is stored as given.
 */
final class Rows {
  /** Every column but the result bytes, in the order {@link #execution} reads them. */
  static final String COLUMNS =
      "id, version, match_key, match_kind, actor, tool, tool_class, fingerprint, intent_scope,"
          + " state, timeline, hold_until, retain_until, lease_owner, lease_expires_at,"
          + " target_status, error_code, error_message, result_size, result_retained,"
          + " result_is_error, awaiting_input, summary";

  private Rows() {}

  /** {@link #COLUMNS} qualified with a table alias. */
  static String columns(String alias) {
    StringBuilder out = new StringBuilder();
    for (String c : COLUMNS.split(",")) {
      if (out.length() > 0) {
        out.append(", ");
      }
      out.append(alias).append('.').append(c.trim());
    }
    return out.toString();
  }

  /**
   * Reads a row selected with {@link #COLUMNS}, starting at column {@code first}; its deadlines
   * (hold, retention, lease expiry) are turned from database time into the caller's by {@code
   * clock}, the timeline is read as written.
   */
  static Execution execution(Row r, int first, DatabaseClock clock) {
    int i = first;
    ExecutionId id = ExecutionId.parse(r.getString(i++));
    long version = r.getLong(i++);
    String matchKey = SqlText.decode(r.getString(i++));
    MatchKind kind = matchKind(r.getString(i++));
    String actor = SqlText.decode(r.getString(i++));
    String tool = SqlText.decode(r.getString(i++));
    ToolClass toolClass = toolClass(r.getString(i++));
    String fingerprint = SqlText.decode(r.getString(i++));
    String scope = SqlText.decode(r.getString(i++));
    ExecutionState state = ExecutionState.fromWireName(r.getString(i++));
    Map<ExecutionState, Instant> timeline = timeline(r.getValue(i++));
    Instant holdUntil = clock.fromDatabase(r.getOffsetDateTime(i++));
    Instant retainUntil = clock.fromDatabase(r.getOffsetDateTime(i++));
    String leaseOwner = r.getString(i++);
    OffsetDateTime leaseExpires = r.getOffsetDateTime(i++);
    Integer targetStatus = r.getInteger(i++);
    Integer errorCode = r.getInteger(i++);
    String errorMessage = r.getString(i++);
    Integer resultSize = r.getInteger(i++);
    Boolean resultRetained = r.getBoolean(i++);
    Boolean resultIsError = r.getBoolean(i++);
    boolean awaitingInput = r.getBoolean(i++);
    String summary = SqlText.decode(r.getString(i));
    return new Execution(
        id,
        version,
        matchKey,
        kind,
        actor,
        tool,
        toolClass,
        fingerprint,
        scope,
        state,
        timeline,
        holdUntil,
        retainUntil,
        leaseOwner == null || leaseExpires == null
            ? null
            : new Lease(SqlText.decode(leaseOwner), clock.fromDatabase(leaseExpires)),
        targetStatus,
        errorCode == null ? null : new RpcError(errorCode, SqlText.decode(errorMessage)),
        resultSize == null
            ? null
            : new ResultRef(
                resultSize,
                Boolean.TRUE.equals(resultRetained),
                Boolean.TRUE.equals(resultIsError)),
        awaitingInput,
        summary);
  }

  /** The record with every instant cut to the microsecond. */
  static Execution normalize(Execution e) {
    EnumMap<ExecutionState, Instant> tl = new EnumMap<>(ExecutionState.class);
    e.timeline().forEach((s, at) -> tl.put(s, micros(at)));
    return new Execution(
        e.id(),
        e.version(),
        e.matchKey(),
        e.matchKind(),
        e.actor(),
        e.tool(),
        e.toolClass(),
        e.fingerprint(),
        e.intentScope(),
        e.state(),
        tl,
        micros(e.holdUntil()),
        micros(e.retainUntil()),
        e.lease() == null ? null : new Lease(e.lease().owner(), micros(e.lease().expiresAt())),
        e.targetStatus(),
        e.error(),
        e.result(),
        e.awaitingInput(),
        e.summary());
  }

  static Instant micros(Instant i) {
    return i.truncatedTo(ChronoUnit.MICROS);
  }

  static OffsetDateTime time(Instant i) {
    return i == null ? null : OffsetDateTime.ofInstant(micros(i), ZoneOffset.UTC);
  }

  static String wire(MatchKind k) {
    return k.name().toLowerCase(Locale.ROOT);
  }

  static JsonObject timeline(Map<ExecutionState, Instant> timeline) {
    JsonObject out = new JsonObject();
    timeline.forEach((s, at) -> out.put(s.wireName(), micros(at).toString()));
    return out;
  }

  private static Map<ExecutionState, Instant> timeline(Object value) {
    JsonObject json =
        value instanceof JsonObject o
            ? o
            : value instanceof String s ? new JsonObject(s) : new JsonObject();
    EnumMap<ExecutionState, Instant> out = new EnumMap<>(ExecutionState.class);
    for (String state : json.fieldNames()) {
      out.put(ExecutionState.fromWireName(state), Instant.parse(json.getString(state)));
    }
    return out;
  }

  private static MatchKind matchKind(String s) {
    for (MatchKind k : MatchKind.values()) {
      if (wire(k).equals(s)) {
        return k;
      }
    }
    throw new IllegalArgumentException("match_kind: unknown value");
  }

  private static ToolClass toolClass(String s) {
    ToolClass c = ToolClass.fromWireName(s);
    if (c == null) {
      throw new IllegalArgumentException("tool_class: unknown value");
    }
    return c;
  }
}
