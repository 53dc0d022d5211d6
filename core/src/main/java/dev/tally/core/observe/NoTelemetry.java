package dev.tally.core.observe;

import dev.tally.core.mcp.Headers;
import dev.tally.core.mcp.McpNames.HeaderNames;
import java.util.function.LongSupplier;

/** {@link Telemetry#NONE}: no spans, no metrics; only the {@code traceparent} that goes on. */
final class NoTelemetry implements Telemetry {
  static final Meter METER =
      new Meter() {
        @Override
        public void decision(String decision, String tool) {}

        @Override
        public void state(String state, String tool) {}

        @Override
        public void attachWait(long nanos) {}

        @Override
        public void storeOperation(String operation, long nanos, boolean failed) {}

        @Override
        public void gauge(String name, String description, String unit, LongSupplier value) {}

        @Override
        public void counter(String name, String description, String unit, LongSupplier value) {}
      };

  NoTelemetry() {}

  @Override
  public RequestSpan request(McpOperation op, Headers incoming) {
    return span(incoming.get(HeaderNames.TRACEPARENT), incoming.get(HeaderNames.TRACESTATE));
  }

  @Override
  public Meter meter() {
    return METER;
  }

  /**
   * A span that records nothing; its steps continue {@code incoming} (may be null) and carry on its
   * {@code incomingState} only when they continue it (W3C: a {@code tracestate} without a valid
   * {@code traceparent} is dropped).
   */
  static RequestSpan span(String incoming, String incomingState) {
    return new RequestSpan() {
      @Override
      public Step step(StepKind step) {
        return new Step() {
          private String traceparent;

          @Override
          public String traceparent() {
            if (traceparent == null) {
              traceparent = TraceContext.next(incoming);
            }
            return traceparent;
          }

          @Override
          public String tracestate() {
            return incomingState != null
                    && !incomingState.isBlank()
                    && TraceContext.continues(incoming, traceparent())
                ? incomingState.trim()
                : null;
          }

          @Override
          public void state(String state) {}

          @Override
          public void end(String errorType) {}
        };
      }

      @Override
      public void decision(String decision) {}

      @Override
      public void execution(String executionId, String state) {}

      @Override
      public void error(String errorType) {}

      @Override
      public void end(int httpStatus) {}
    };
  }
}
