package dev.tally.sidecar.internal.rpc;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * What a streaming scan of a POST body found, without building a tree.
 *
 * @param shape a single message, a batch, or unreadable input
 * @param method the top-level {@code method} (the first one in a batch that is a {@code
 *     tools/call}, else the first), or {@code null}
 * @param id the top-level {@code id} (string, number or null node), or {@code null} if absent or
 *     not yet seen
 * @param toolsCallInBatch a batch holds at least one {@code tools/call}
 * @param error why the body is unreadable ({@code shape == INVALID}), naming the limit or position,
 *     never echoing content
 * @param tooDeep the body broke the nesting-depth limit
 * @param call what a full scan found of a {@code tools/call} whose envelope passes the checks of
 *     {@link ToolCallBody#parse} ({@code jsonrpc}, {@code id}, {@code params} and the types of
 *     {@code name}, {@code arguments}, {@code _meta}), else {@code null}
 */
public record RequestScan(
    Shape shape,
    String method,
    JsonNode id,
    boolean toolsCallInBatch,
    String error,
    boolean tooDeep,
    Call call) {

  /**
   * The parts of a well-formed {@code tools/call} that decide whether it may pass straight through:
   * {@code params.name} and {@code params._meta["io.modelcontextprotocol/protocolVersion"]} (or
   * {@code null}).
   */
  public record Call(String tool, String metaProtocolVersion) {}

  /** A scan result without {@link #call()}. */
  public RequestScan(
      Shape shape,
      String method,
      JsonNode id,
      boolean toolsCallInBatch,
      String error,
      boolean tooDeep) {
    this(shape, method, id, toolsCallInBatch, error, tooDeep, null);
  }

  /** The top-level form of a body. */
  public enum Shape {
    MESSAGE,
    BATCH,
    INVALID
  }

  static RequestScan invalid(String error, boolean tooDeep) {
    return new RequestScan(Shape.INVALID, null, null, false, error, tooDeep);
  }

  /** The message is a request or notification calling {@code tools/call}. */
  public boolean isToolsCall() {
    return shape == Shape.MESSAGE && JsonRpc.TOOLS_CALL.equals(method);
  }
}
