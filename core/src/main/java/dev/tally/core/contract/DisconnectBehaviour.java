package dev.tally.core.contract;

/** What a client disconnect means for an in-flight call. */
public enum DisconnectBehaviour {
  /** Keep the upstream call running and store its result for replay (default for writes). */
  FINISH,
  /** Cancel the upstream call. */
  CANCEL
}
