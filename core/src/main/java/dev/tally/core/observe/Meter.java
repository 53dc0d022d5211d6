package dev.tally.core.observe;

import java.util.function.LongSupplier;

/**
 * The metrics core and the adapters record, by name in docs/metrics.md. Every method is cheap,
 * thread-safe and never throws; label values are Tally's own vocabulary (decisions, states, store
 * operations) or tool names, never argument values.
 */
public interface Meter {
  /**
   * The gate decided {@code decision} (dispatch, replay, attach, respond, refuse, pass_through).
   */
  void decision(String decision, String tool);

  /** An execution of {@code tool} entered {@code state} (a transition this instance recorded). */
  void state(String state, String tool);

  /** A retry waited {@code nanos} for the execution it attached to. */
  void attachWait(long nanos);

  /** One store operation took {@code nanos}; {@code failed} when it did not complete. */
  void storeOperation(String operation, long nanos, boolean failed);

  /** A gauge read when scraped (or exported); {@code value} must be cheap and thread-safe. */
  void gauge(String name, String description, String unit, LongSupplier value);

  /** A monotonic counter kept elsewhere, read when scraped (or exported). */
  void counter(String name, String description, String unit, LongSupplier value);

  /**
   * A monotonic counter with several series, read when scraped (or exported): {@code observe} is
   * called with a sink and records each series' value with its attributes (label values from
   * Tally's own vocabulary, e.g. {@code port=mcp, limit=framing}). Records nothing by default.
   */
  default void counterSeries(
      String name, String description, String unit, java.util.function.Consumer<Series> observe) {}

  /** Where {@link #counterSeries} records its series. */
  @FunctionalInterface
  interface Series {
    void record(long value, java.util.Map<String, String> attributes);
  }

  /** Records nothing. */
  Meter NONE = NoTelemetry.METER;
}
