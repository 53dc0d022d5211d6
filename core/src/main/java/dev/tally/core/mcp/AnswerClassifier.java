package dev.tally.core.mcp;

/**
 * How an upstream's answer to a dispatched {@code tools/call} settles its execution: the table "How
 * a stored outcome is classified" of docs/tool-results.md as code, the one rule both adapters
 * follow. The JSON-RPC message decides when there is one, whatever the HTTP status around it (a
 * {@code result} inside an HTTP 5xx is still the server's statement of what the tool did); only an
 * answerless response falls back on the status.
 */
public final class AnswerClassifier {
  private AnswerClassifier() {}

  /** What an observed answer (or its absence) makes of the execution. */
  public enum Settlement {
    /** A {@code result} (also with {@code isError: true}): {@code completed}, replayed later. */
    COMPLETED,
    /** MRTR input required: stays {@code dispatched}; the follow-up call continues it. */
    INPUT_REQUIRED,
    /** A JSON-RPC error that proves the tool never ran: {@code failed}, the key released. */
    FAILED,
    /** Any other JSON-RPC error: {@code completed} with the error, replayed as such. */
    COMPLETED_WITH_ERROR,
    /** Nothing reached the tool (a 4xx before it ran): {@code failed}, the key released. */
    FAILED_BEFORE_EFFECT,
    /** The call may have run and no answer was seen: {@code outcome_unknown}. */
    UNKNOWN
  }

  /** The settlement of an answer the upstream gave. */
  public static Settlement of(RpcOutcome answer) {
    if (answer instanceof RpcOutcome.Result r) {
      return r.inputRequired() ? Settlement.INPUT_REQUIRED : Settlement.COMPLETED;
    }
    RpcOutcome.Error e = (RpcOutcome.Error) answer;
    return provesNoEffect(e.error().code()) ? Settlement.FAILED : Settlement.COMPLETED_WITH_ERROR;
  }

  /**
   * The settlement of a response that ended without an answer: an HTTP 4xx is sent by MCP servers
   * only before a tool runs; anything else (2xx without the answer, 5xx, 3xx) leaves it unknown.
   */
  public static Settlement ofAnswerlessEnd(int httpStatus) {
    return httpStatus >= 400 && httpStatus < 500
        ? Settlement.FAILED_BEFORE_EFFECT
        : Settlement.UNKNOWN;
  }

  /**
   * JSON-RPC errors that prove the tool never ran: parse error, invalid request, method not found,
   * invalid params.
   */
  public static boolean provesNoEffect(int rpcCode) {
    return rpcCode == -32700 || rpcCode == -32600 || rpcCode == -32601 || rpcCode == -32602;
  }
}
