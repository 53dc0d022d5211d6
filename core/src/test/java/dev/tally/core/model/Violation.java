package dev.tally.core.model;

/** A model run saw the gate break an invariant or decide other than the model. */
final class Violation extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Which invariant: decision, effects, actors, bytes or durable. */
  private final String invariant;

  Violation(String invariant, String message) {
    super(invariant + ": " + message, null, false, false);
    this.invariant = invariant;
  }

  String invariant() {
    return invariant;
  }
}
