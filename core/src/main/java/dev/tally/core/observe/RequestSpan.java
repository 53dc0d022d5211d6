package dev.tally.core.observe;

/**
 * The span of one MCP request (kind server), from the moment an adapter read its body to the moment
 * its answer was written or the client went away. Tally's steps are its children ({@link #step});
 * {@link #end} records the request in {@code mcp.server.operation.duration}. Thread-safe; calls
 * after {@link #end} change nothing.
 */
public interface RequestSpan {
  /** A span that records nothing (every request of {@link Telemetry#NONE}). */
  RequestSpan NONE = NoTelemetry.span(null, null);

  /** Starts the child span for {@code step}; end it with {@link Step#end}. */
  Step step(StepKind step);

  /** Sets {@code tally.decision} (the gate's decision on the call: dispatch, replay, attach …). */
  void decision(String decision);

  /** Sets {@code tally.execution.id} and {@code tally.state}. */
  void execution(String executionId, String state);

  /**
   * Marks the request failed with {@code error.type} {@code errorType}: a Tally error code ({@code
   * STORE_UNAVAILABLE}), a JSON-RPC error code ({@code -32602}), an HTTP status ({@code 502}),
   * {@code tool_error} or {@code outcome_unknown}. The last mark stands.
   */
  void error(String errorType);

  /**
   * Ends the span and records the request's duration. {@code httpStatus} is the status of the
   * answer written, or 0 when none was (the client went away); a status of 400 or more is the
   * {@code error.type} unless one was marked.
   */
  void end(int httpStatus);

  /** The steps of a request Tally records a span for. */
  enum StepKind {
    /** The gate deciding on a {@code tools/call} (store claim included). */
    ADMIT("tally.admit"),
    /**
     * The call on its way to the upstream and back (kind client, named like the request: the client
     * side of the same MCP operation): its context is the {@code traceparent} the upstream
     * receives.
     */
    DISPATCH("tally.dispatch"),
    /** Recording the upstream's answer durably. */
    COMPLETE("tally.complete");

    private final String spanName;

    StepKind(String spanName) {
      this.spanName = spanName;
    }

    public String spanName() {
      return spanName;
    }
  }

  /** One step's span. */
  interface Step {
    /** The W3C {@code traceparent} naming this span as the parent (for the upstream request). */
    String traceparent();

    /**
     * The W3C {@code tracestate} that goes with {@link #traceparent()} (the caller's, as Tally
     * propagates it), or null when there is none.
     */
    default String tracestate() {
      return null;
    }

    /** Sets {@code tally.state} on this span. */
    void state(String state);

    /** Ends the span; {@code errorType} null for success, else as for {@link #error}. */
    void end(String errorType);
  }
}
