package dev.tally.core.contract;

/** What a retry of an execution whose outcome is unknown gets. */
public enum UnknownOutcomePolicy {
  /** Report {@code OUTCOME_UNKNOWN}; an operator or status check must resolve it. */
  REPORT,
  /** Re-dispatch with the same execution id (the upstream deduplicates on it). */
  REDISPATCH,
  /** Ask the configured status tool, then decide. */
  STATUS_CHECK;

  /** The policy a class implies when configuration says nothing. */
  public static UnknownOutcomePolicy defaultFor(ToolClass c) {
    return switch (c) {
      case KEYED -> REDISPATCH;
      case STATUS_CHECK -> STATUS_CHECK;
      case READ_ONLY, IRREVERSIBLE -> REPORT;
    };
  }
}
