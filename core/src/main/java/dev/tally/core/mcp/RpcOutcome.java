package dev.tally.core.mcp;

import dev.tally.core.execution.RpcError;

/** What a server answered to one JSON-RPC request, as seen by {@link RpcResponseWatcher}. */
public sealed interface RpcOutcome {

  /**
   * A {@code result}.
   *
   * @param result the result object, as compact UTF-8 JSON
   * @param isError the tool result's {@code isError}
   * @param inputRequired an MRTR input-required result ({@code resultType: "input_required"}): the
   *     execution is not finished
   */
  record Result(byte[] result, boolean isError, boolean inputRequired) implements RpcOutcome {
    @Override
    public String toString() {
      return "Result[" + result.length + " bytes, isError=" + isError + "]";
    }
  }

  /** An {@code error}. */
  record Error(RpcError error) implements RpcOutcome {}
}
