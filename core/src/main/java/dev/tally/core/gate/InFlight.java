package dev.tally.core.gate;

import dev.tally.core.contract.ToolContract;
import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.execution.RpcError;
import java.util.concurrent.CompletionStage;

/**
 * A dispatched execution the adapter is driving. Report exactly what was observed; each method
 * records one transition durably and completes once it is stored. The gate keeps the lease alive
 * (heartbeats) until the execution leaves {@code dispatched}.
 */
public interface InFlight {
  ExecutionId id();

  /** The record as of the last transition this handle made. */
  Execution execution();

  ToolContract contract();

  /** The execution existed before this call (continued, taken over, or re-dispatched). */
  boolean continued();

  /**
   * The upstream answered with a JSON-RPC {@code result} (bytes of the result object). {@code
   * isError} is the tool result's {@code isError}. Records {@code completed}.
   */
  CompletionStage<Execution> completed(int httpStatus, byte[] result, boolean isError);

  /**
   * The upstream answered with a JSON-RPC error. Errors that prove the tool did not run (parse,
   * invalid request, method not found, invalid params) record {@code failed} and release the key;
   * any other error is stored as the outcome ({@code completed}) and replayed.
   */
  CompletionStage<Execution> rpcError(int httpStatus, RpcError error);

  /** The time on the gate's clock (for what is shown of a transition being recorded). */
  default java.time.Instant now() {
    return java.time.Instant.now();
  }

  /**
   * As {@link #rpcError(int, RpcError)}, keeping the error's {@code data} (compact JSON, may be
   * null) with the outcome so that a replay of the error carries it, as a result would be kept.
   */
  default CompletionStage<Execution> rpcError(int httpStatus, RpcError error, byte[] data) {
    return rpcError(httpStatus, error);
  }

  /**
   * MRTR: the upstream answered with an input-required result. The execution stays open ({@code
   * dispatched}) and the follow-up call carrying {@code inputResponses} continues it.
   */
  CompletionStage<Execution> inputRequired(int httpStatus);

  /**
   * Nothing reached the upstream (connect refused, a 4xx before the tool ran). Releases the key.
   */
  CompletionStage<Execution> failedBeforeEffect(int httpStatus, String reason);

  /**
   * The request may have reached the upstream but no answer was seen. Records {@code
   * outcome_unknown}.
   */
  CompletionStage<Execution> unknown(String reason);

  /** The result was written to the client. Records {@code delivered}. */
  CompletionStage<Execution> delivered();

  /** The client was gone before the result was written. Records {@code completed_not_delivered}. */
  CompletionStage<Execution> notDelivered();
}
