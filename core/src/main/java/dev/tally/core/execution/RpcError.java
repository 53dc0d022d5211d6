package dev.tally.core.execution;

/** A JSON-RPC error as the upstream answered it: code and message (never its data). */
public record RpcError(int code, String message) {
  public RpcError {
    message = message == null ? "" : message;
  }
}
