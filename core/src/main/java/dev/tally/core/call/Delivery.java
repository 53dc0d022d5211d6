package dev.tally.core.call;

/**
 * Told whether an answer reached its client: {@code false} at most once (no client, or the write
 * failed), then {@code true} at most once (a client, possibly a resumed one, received it). Adapters
 * call it; core decides what it records.
 */
@FunctionalInterface
public interface Delivery {
  void written(boolean ok);

  /** Ignores the outcome. */
  Delivery NONE = ok -> {};
}
