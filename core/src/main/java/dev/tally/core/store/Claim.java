package dev.tally.core.store;

import dev.tally.core.execution.Execution;

/** The outcome of {@link ExecutionStore#claim}: the candidate won, or a holder already exists. */
public sealed interface Claim {
  /** The execution now holding the key. */
  Execution execution();

  /** The candidate was inserted and holds the key. */
  record Won(Execution execution) implements Claim {}

  /** Another record already holds the key; the candidate was not inserted. */
  record Existing(Execution execution) implements Claim {}
}
