package dev.tally.core.audit;

import java.util.Locale;

/**
 * How a call that matched an existing execution was answered without moving it (ARCHITECTURE.md §6
 * step 5). Written to the activity journal so an incident timeline shows the second call.
 */
public enum RetryOutcome {
  /** The execution was still running; the call attached and waited for it. */
  ATTACHED,
  /** The execution had completed; its stored result was replayed. */
  REPLAYED,
  /** The execution had been rejected; the same rejection was returned. */
  REJECTED,
  /** The execution waits for confirmation; the same pending result was returned. */
  PENDING,
  /** The execution's outcome is unknown; the contract's policy answered. */
  OUTCOME_UNKNOWN,
  /** The same idempotency key came with different arguments: {@code IDEMPOTENCY_KEY_REUSED}. */
  KEY_REUSED,
  /** The execution had been cancelled by its person; the same decision was returned. */
  CANCELLED,
  /** The execution's confirmation had expired; the same decision was returned. */
  EXPIRED;

  /** The name written to the journal ({@code outcome_unknown}). */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
