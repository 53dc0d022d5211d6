package dev.tally.core.gate;

import dev.tally.core.mcp.Headers;
import dev.tally.core.mcp.RpcOutcome;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * How an adapter calls a contract's {@code statusTool} upstream (issue 18): a {@code tools/call} of
 * {@code tool} with {@code argumentsJson} (a JSON object), on behalf of the retry whose request had
 * {@code headers}. An adapter that asks as a stateless 2026-07-28 client sends {@code
 * modernHeaders}: what such a client would send with this call ({@link
 * dev.tally.core.mcp.HeaderRules#mirrored}: the protocol version, {@code Mcp-Method}, {@code
 * Mcp-Name} and an {@code Mcp-Param-*} for each of the status tool's {@code x-mcp-header}
 * parameters). Completes with the upstream's answer, or empty when it could not be asked
 * (unreachable, no answer in time); never exceptionally. Core knows no transport; this is its one
 * door to the upstream for status checks.
 */
@FunctionalInterface
public interface StatusLookup {
  CompletionStage<Optional<RpcOutcome>> call(
      String tool, byte[] argumentsJson, Headers headers, Map<String, String> modernHeaders);

  /**
   * No lookup: a status-check contract's unknown outcome is reported as {@code OUTCOME_UNKNOWN}.
   */
  StatusLookup NONE =
      (tool, args, headers, modern) ->
          CompletableFuture.completedFuture(Optional.<RpcOutcome>empty());
}
