package dev.tally.core.mcp;

/**
 * Explicit tool results the agent sees for uncertain or refused executions. Each is rendered as a
 * {@code tools/call} result with {@code isError: true} and {@code structuredContent.tally} holding
 * the activity record (docs/tool-results.md has the table).
 */
public enum TallyCode {
  IDEMPOTENCY_IN_PROGRESS(
      true,
      "The same action is still running. Retry later with the same arguments to get its result."),
  IDEMPOTENCY_KEY_REUSED(
      false,
      "This idempotency key was already used for different arguments. Use a new key for a new action."),
  OUTCOME_UNKNOWN(
      false,
      "The action was sent but its outcome is unknown. Do not repeat it; an operator must check and resolve it."),
  REJECTED(false, "The action was rejected by authorization and was not performed."),
  PENDING_CONFIRMATION(
      true,
      "The action waits for a human to confirm it. Retry with the same arguments after confirmation."),
  CONFIRMATION_CANCELLED(
      false,
      "The action was cancelled by the person who had to confirm it and was not performed. Do not"
          + " repeat it; to ask again on purpose, send a new idempotency key."),
  CONFIRMATION_EXPIRED(
      false,
      "Nobody confirmed the action in time; it expired and was not performed. To ask again on"
          + " purpose, send a new idempotency key."),
  RESULT_WITHHELD(
      false,
      "An identical call from a caller without a proven identity matched an earlier execution (its id and state are shown); its result is only shown to the caller that proved the same identity. Do not repeat it blindly: send a credential to see your own results, or a new idempotency key or intent scope to run the action again on purpose."),
  RESULT_NOT_RETAINED(
      false,
      "The action completed, but its result was too large to keep. Do not repeat it; look the result up at its target.");

  private final boolean retryable;
  private final String next;

  TallyCode(boolean retryable, String next) {
    this.retryable = retryable;
    this.next = next;
  }

  /** Whether retrying the same call later can give a different answer. */
  public boolean retryable() {
    return retryable;
  }

  /** What the agent should do next, in one sentence. */
  public String next() {
    return next;
  }
}
