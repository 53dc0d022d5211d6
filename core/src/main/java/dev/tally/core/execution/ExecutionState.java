package dev.tally.core.execution;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * Where an execution stopped. Legal transitions follow ARCHITECTURE.md §5; {@link
 * #canTransitionTo(ExecutionState)} is the single source of truth and every store checks it.
 *
 * <p>Implementation note: §5 leaves two arrows implicit, made explicit here: {@code outcome_unknown
 * -> dispatched} (a {@code keyed} tool is re-dispatched with the same execution id) and {@code
 * completed_not_delivered -> delivered} (a later replay reached the client). A failure before any
 * effect may also be recorded from {@code accepted} or {@code authorized}. {@code
 * pending_confirmation -> pending_confirmation} stores the call to run on confirmation (issue 18),
 * and {@code pending_confirmation -> rejected} records a confirmation the rules refused.
 */
public enum ExecutionState {
  ACCEPTED,
  AUTHORIZED,
  PENDING_CONFIRMATION,
  DISPATCHED,
  COMPLETED,
  DELIVERED,
  COMPLETED_NOT_DELIVERED,
  FAILED,
  OUTCOME_UNKNOWN,
  REJECTED,
  CANCELLED,
  EXPIRED;

  // Computed once: the journals, the audit trail and the admin API ask for it on every record.
  private final String wireName = name().toLowerCase(Locale.ROOT);

  private Set<ExecutionState> next;

  static {
    ACCEPTED.next = EnumSet.of(AUTHORIZED, REJECTED, FAILED, DISPATCHED, PENDING_CONFIRMATION);
    AUTHORIZED.next = EnumSet.of(DISPATCHED, PENDING_CONFIRMATION, FAILED);
    PENDING_CONFIRMATION.next =
        EnumSet.of(PENDING_CONFIRMATION, AUTHORIZED, CANCELLED, EXPIRED, REJECTED);
    DISPATCHED.next = EnumSet.of(COMPLETED, FAILED, OUTCOME_UNKNOWN);
    COMPLETED.next = EnumSet.of(DELIVERED, COMPLETED_NOT_DELIVERED);
    COMPLETED_NOT_DELIVERED.next = EnumSet.of(DELIVERED);
    OUTCOME_UNKNOWN.next = EnumSet.of(COMPLETED, FAILED, DISPATCHED);
    DELIVERED.next = EnumSet.noneOf(ExecutionState.class);
    FAILED.next = EnumSet.noneOf(ExecutionState.class);
    REJECTED.next = EnumSet.noneOf(ExecutionState.class);
    CANCELLED.next = EnumSet.noneOf(ExecutionState.class);
    EXPIRED.next = EnumSet.noneOf(ExecutionState.class);
  }

  /** Whether the state machine allows moving from this state to {@code to}. */
  public boolean canTransitionTo(ExecutionState to) {
    return next.contains(to);
  }

  /**
   * Throws {@link IllegalTransitionException} unless {@code to} is a legal next state. An illegal
   * transition is a bug in the caller, never an expected outcome.
   */
  public void checkTransitionTo(ExecutionState to) {
    if (!canTransitionTo(to)) {
      throw new IllegalTransitionException(this, to);
    }
  }

  /** No transition leaves this state. */
  public boolean isTerminal() {
    return next.isEmpty();
  }

  /** The upstream may have acted (a side effect may exist). */
  public boolean mayHaveEffect() {
    return this == DISPATCHED
        || this == COMPLETED
        || this == DELIVERED
        || this == COMPLETED_NOT_DELIVERED
        || this == OUTCOME_UNKNOWN;
  }

  /** A result was observed and can be replayed. */
  public boolean hasResult() {
    return this == COMPLETED || this == DELIVERED || this == COMPLETED_NOT_DELIVERED;
  }

  /**
   * The state releases the match key: a new call with the same identity starts anew. Only a failure
   * before any effect does; a cancelled, expired or rejected call keeps its key until its hold
   * ends, so that an identical retry gets that decision back instead of a fresh request for
   * approval.
   */
  public boolean releasesKey() {
    return this == FAILED;
  }

  /** The name used on the wire, in journals and in the admin API ({@code outcome_unknown}). */
  public String wireName() {
    return wireName;
  }

  /** Parses a {@link #wireName()}; throws {@link IllegalArgumentException} naming the value. */
  public static ExecutionState fromWireName(String name) {
    for (ExecutionState s : values()) {
      if (s.wireName().equals(name)) {
        return s;
      }
    }
    throw new IllegalArgumentException("unknown execution state: " + name);
  }
}
