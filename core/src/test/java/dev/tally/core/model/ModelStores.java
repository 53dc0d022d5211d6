package dev.tally.core.model;

import dev.tally.core.store.ExecutionStore;
import dev.tally.core.testing.MutableClock;

/** The store a {@link GateModelSuite} binding puts under the gate, opened anew for every run. */
public interface ModelStores {
  /**
   * A new, empty store using {@code clock} where it needs time, keeping results up to 4096 bytes.
   */
  ExecutionStore open(MutableClock clock) throws Exception;

  /**
   * Closes {@code store} and opens it again on the same data, as a restarted process does; null
   * (the default) when the store keeps nothing across a restart: it then stays open, as a store
   * that another replica still holds.
   */
  default ExecutionStore reopen(ExecutionStore store, MutableClock clock) throws Exception {
    return null;
  }

  /** The store records executions left dispatched as {@code outcome_unknown} when it opens. */
  default boolean settlesOrphansOnOpen() {
    return false;
  }

  /** Closes {@code store} at the end of a run and deletes what it kept. */
  default void dispose(ExecutionStore store) {
    store.close();
  }
}
