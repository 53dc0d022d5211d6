package dev.tally.core.execution;

/** How a retry is matched to an execution (ARCHITECTURE.md §6 steps 3 and 4). */
public enum MatchKind {
  /** By an explicit idempotency key, scoped per actor and tool; holds for the retention. */
  IDEMPOTENCY_KEY,
  /** By fingerprint, actor and intent scope; holds for the attach window, until delivered. */
  FINGERPRINT
}
