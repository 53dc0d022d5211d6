package dev.tally.core.observe;

import dev.tally.core.mcp.Headers;

/**
 * The one seam through which core and both adapters report what happens to MCP requests: a span per
 * request with child spans for admit, dispatch and complete ({@link RequestSpan}), and the metrics
 * that go with them ({@link Meter}). Core knows only this interface; the OpenTelemetry
 * implementation lives in the {@code tally-telemetry} module, so the engine carries no tracing
 * dependency and both adapters export the same spans and metrics. Implementations are thread-safe;
 * every method is cheap and never throws.
 */
public interface Telemetry {
  /**
   * Records nothing and costs next to nothing; the upstream still gets a {@code traceparent} that
   * continues the caller's trace (see {@link TraceContext}).
   */
  // Not a static field of NoTelemetry: initialising NoTelemetry first initialises this interface
  // (it has default methods), which then read that field while it was still null.
  Telemetry NONE = new NoTelemetry();

  /**
   * Starts the span of one MCP request {@code op}, continuing the W3C trace context in {@code
   * incoming} ({@code traceparent}, {@code tracestate}; its sampled flag decides) when it holds a
   * valid one. End it with {@link RequestSpan#end}.
   */
  RequestSpan request(McpOperation op, Headers incoming);

  /**
   * Starts the span of a GET stream on the MCP endpoint, sent with {@code incoming}: a standalone
   * server-to-client stream, or, when {@code resume}, a resumption with {@code Last-Event-ID}. Not
   * an MCP operation (no JSON-RPC message): it records no {@code mcp.server.operation.duration} and
   * has no steps. End it with {@link RequestSpan#end} when the stream ends.
   */
  default RequestSpan stream(boolean resume, Headers incoming) {
    return RequestSpan.NONE;
  }

  /** The counters and histograms core and the adapters record into. */
  Meter meter();

  /** Whether spans are recorded at all (an exporter is configured). */
  default boolean tracing() {
    return false;
  }
}
