package dev.tally.core.observe;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The log lines an operator must see, written once for both adapters: WARN for an unreachable
 * upstream, a call turning {@code outcome_unknown} and a store going unavailable (INFO when it is
 * back). Fields go as SLF4J key-value pairs ({@code execution_id}, {@code tool}, {@code decision},
 * {@code trace_id}), so a JSON layout puts them in their own members. A line never holds an
 * argument value, a header value or a secret: only Tally's ids, tool names and its own reasons.
 */
public final class CallLog {
  /** The logger of call outcomes ({@code dev.tally.calls}). */
  public static final String CALLS = "dev.tally.calls";

  /** The logger of the store's availability ({@code dev.tally.store}). */
  public static final String STORE = "dev.tally.store";

  private static final Logger CALL_LOG = LoggerFactory.getLogger(CALLS);
  private static final Logger STORE_LOG = LoggerFactory.getLogger(STORE);

  private CallLog() {}

  /** The upstream could not be reached for a dispatched call: nothing was sent. */
  public static void upstreamUnreachable(String executionId, String tool, String traceparent) {
    CALL_LOG
        .atWarn()
        .addKeyValue("execution_id", executionId)
        .addKeyValue("tool", tool)
        .addKeyValue("decision", "dispatch")
        .addKeyValue("trace_id", traceId(traceparent))
        .log("upstream unreachable; nothing was sent, the call may be retried");
  }

  /** A dispatched call turned {@code outcome_unknown} for {@code reason} (Tally's own words). */
  public static void outcomeUnknown(
      String executionId, String tool, String reason, String traceparent) {
    CALL_LOG
        .atWarn()
        .addKeyValue("execution_id", executionId)
        .addKeyValue("tool", tool)
        .addKeyValue("decision", "dispatch")
        .addKeyValue("trace_id", traceId(traceparent))
        .log(
            "outcome_unknown: {}; a retry gets the tool's unknown-outcome policy, resolve it with"
                + " the admin API if it holds",
            reason);
  }

  /** The store stopped accepting operations ({@code code}: the store's error code). */
  public static void storeUnavailable(String operation, String code) {
    STORE_LOG
        .atWarn()
        .addKeyValue("operation", operation)
        .addKeyValue("code", code)
        .log("execution store unavailable; side-effecting calls are refused until it is back");
  }

  /** The store accepts operations again. */
  public static void storeAvailable() {
    STORE_LOG.info("execution store available again");
  }

  /** The trace id of a W3C {@code traceparent}, or null. */
  static String traceId(String traceparent) {
    return traceparent != null && traceparent.length() >= 35 ? traceparent.substring(3, 35) : null;
  }
}
