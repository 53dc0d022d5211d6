package dev.tally.sidecar.internal.stream;

/**
 * Told whether an event reached a client: {@code false} at most once (no client, or the write
 * failed), then {@code true} at most once (a client, possibly a resumed one, received it).
 */
@FunctionalInterface
public interface Delivery {
  void written(boolean ok);

  /** Ignores the outcome. */
  Delivery NONE = ok -> {};
}
