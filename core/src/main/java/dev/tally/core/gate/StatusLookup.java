package dev.tally.core.gate;

import dev.tally.core.mcp.Headers;
import dev.tally.core.mcp.RpcOutcome;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * How an adapter calls a contract's {@code statusTool} upstream (issue 18): a {@code tools/call} of
 * {@code tool} with {@code argumentsJson} (a JSON object), on behalf of the retry whose request had
 * {@code headers}. Completes with the upstream's answer, or empty when it could not be asked
 * (unreachable, no answer in time); never exceptionally. Core knows no transport; this is its one
 * door to the upstream for status checks.
 */
@FunctionalInterface
public interface StatusLookup {
  CompletionStage<Optional<RpcOutcome>> call(String tool, byte[] argumentsJson, Headers headers);

  /**
   * No lookup: a status-check contract's unknown outcome is reported as {@code OUTCOME_UNKNOWN}.
   */
  StatusLookup NONE =
      (tool, args, headers) -> CompletableFuture.completedFuture(Optional.<RpcOutcome>empty());
}
