package dev.tally.core.audit;

import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import java.time.Instant;

/**
 * Where the gate and the store report what happened, for the audit journals (ARCHITECTURE.md §9).
 * Calls are cheap and do not wait for a disk: entries are buffered and made durable by {@link
 * #flush()}, which the store calls as part of its group commit (when more than {@link
 * AuditOptions#maxPendingBytes()} are pending, a background thread flushes; only at four times as
 * many does the reporting thread flush itself). A checkpoint due on a call is signed on the calling
 * thread (~0.05–0.15 ms with Bouncy Castle, once per {@link AuditOptions#checkpointEvery()}
 * entries). Safe for use by many threads.
 *
 * <p>Only whitelisted fields reach a journal: identifiers, states, times, the fingerprint, status
 * codes and {@link Execution#summary()}; never a match key, an error message, result bytes or a raw
 * MCP session id. Methods throw {@link AuditException} when the journal cannot take entries;
 * callers treat that like a store that cannot write (fail closed).
 */
public interface AuditSink {

  /**
   * An execution moved from {@code before} ({@code null} when it was created) to {@code after}.
   * Lease heartbeats (same state, same owner, same awaiting-input flag) are not recorded.
   *
   * @param session the run or MCP session of the call that caused the transition, or {@code null}
   */
  void transition(Execution before, Execution after, SessionRef session);

  /** {@link #transition(Execution, Execution, SessionRef)} without a session. */
  default void transition(Execution before, Execution after) {
    transition(before, after, null);
  }

  /**
   * A call matched {@code execution} and was answered from it without a transition.
   *
   * @param session the run or MCP session of the retrying call, or {@code null}
   */
  void retry(Execution execution, RetryOutcome outcome, SessionRef session, Instant at);

  /** A request carried a run id or an MCP session. */
  void session(SessionSeen seen);

  /**
   * The execution {@code id}, about to be created, comes from a call in {@code session}: its
   * creation entry (a {@link #transition} from {@code null} reported without a session, as stores
   * report them) names that session. Forgotten once used; a sink may forget unused ones.
   */
  default void attribute(ExecutionId id, SessionRef session) {}

  /**
   * The operator changed write control (issue 18): {@code event} is {@code write_switch} (the
   * switch moved to {@code position} {@code on}, {@code off} or {@code cleared}, for everyone when
   * {@code actor} is null, else for that actor), {@code revoke} or {@code restore} (of {@code
   * actor}; {@code position} null). Does nothing by default.
   */
  default void control(String event, String actor, String position, Instant at) {}

  /**
   * A status tool was asked about {@code execution} (issue 18), for the {@code attempt}-th time;
   * {@code answer} is what it said: {@code completed}, {@code not_found}, {@code unanswered} (no
   * answer was had), {@code error} or {@code unrecognized}; or {@code argument_missing} when no
   * lookup was made because an argument the contract's {@code statusArguments} maps was absent from
   * the call. Does nothing by default.
   */
  default void statusLookup(
      Execution execution, String statusTool, String answer, int attempt, Instant at) {}

  /** Makes every entry reported before this call durable (one fsync per journal). */
  void flush();

  /** A sink that records nothing. */
  static AuditSink noop() {
    return NoopSink.INSTANCE;
  }
}
