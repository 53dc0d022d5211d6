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

  /**
   * An {@code error}.
   *
   * @param data the error's {@code data} as compact UTF-8 JSON, or null when it has none
   */
  record Error(RpcError error, byte[] data) implements RpcOutcome {
    public Error(RpcError error) {
      this(error, null);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Error e && error.equals(e.error) && java.util.Arrays.equals(data, e.data);
    }

    @Override
    public int hashCode() {
      return error.hashCode() * 31 + java.util.Arrays.hashCode(data);
    }

    @Override
    public String toString() {
      return "Error["
          + error.code()
          + ", data "
          + (data == null ? "none" : data.length + " bytes")
          + "]";
    }
  }
}
