package dev.tally.core.contract;

import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What a {@code status_check} contract's {@code statusTool} is called with (issue 18): the
 * execution id under {@code executionIdName}, and for each entry of {@code fromCall} the status
 * tool's argument of that name taken from the original call's arguments at the JSON pointer it maps
 * to. The values are never stored: the lookup runs on the retry, whose arguments are the original's
 * (same fingerprint), and takes them from there. Immutable.
 *
 * @param executionIdName the status tool's argument that gets the execution id ({@code
 *     statusExecutionIdArgument}, default {@value #DEFAULT_EXECUTION_ID_NAME})
 * @param fromCall status tool argument name → RFC 6901 pointer into the call's arguments ({@code
 *     statusArguments}), in name order
 */
public record StatusArguments(String executionIdName, Map<String, String> fromCall) {
  /** The argument the execution id goes in unless configured otherwise. */
  public static final String DEFAULT_EXECUTION_ID_NAME = "executionId";

  /** Only the execution id, as {@value #DEFAULT_EXECUTION_ID_NAME}. */
  public static final StatusArguments DEFAULT =
      new StatusArguments(DEFAULT_EXECUTION_ID_NAME, Map.of());

  public StatusArguments {
    Objects.requireNonNull(executionIdName, "executionIdName");
    fromCall = java.util.Collections.unmodifiableMap(new TreeMap<>(fromCall));
    if (fromCall.containsKey(executionIdName)) {
      throw new IllegalArgumentException(
          "statusArguments: " + executionIdName + " is the execution id's argument");
    }
  }
}
