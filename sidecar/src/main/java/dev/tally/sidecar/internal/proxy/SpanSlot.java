package dev.tally.sidecar.internal.proxy;

import dev.tally.core.mcp.Headers;
import dev.tally.core.observe.McpOperation;
import dev.tally.core.observe.RequestSpan;
import dev.tally.core.observe.Telemetry;

/**
 * The span of one HTTP request to the MCP endpoint, once its body showed which MCP message it is
 * (or, for a GET, which stream it asks for): started by {@link PostFlow} or {@link McpHandler},
 * ended by {@link McpHandler} when the response is done with (written or its connection gone). Used
 * on the request's event loop only.
 */
final class SpanSlot {
  private RequestSpan span;

  /** Starts the span of {@code op} and keeps it for {@link #end}. */
  RequestSpan start(Telemetry telemetry, McpOperation op, Headers headers) {
    span = telemetry.request(op, headers);
    return span;
  }

  /** Starts the span of a GET stream (a resumption when {@code resume}) and keeps it. */
  RequestSpan startStream(Telemetry telemetry, boolean resume, Headers headers) {
    span = telemetry.stream(resume, headers);
    return span;
  }

  /** Ends the span, if one was started, with the status written (0: none). */
  void end(int httpStatus) {
    RequestSpan s = span;
    if (s != null) {
      s.end(httpStatus);
    }
  }
}
