package dev.tally.core.model;

/**
 * Scenarios the generator and the run leave out while a finding of this model is open in main code;
 * each is kept as a failing case of its own ({@code GateModelFindingsTest}). The invariants are not
 * weakened: only the scenarios that trigger a known finding are not drawn.
 */
final class KnownFindings {
  private KnownFindings() {}

  /**
   * Finding 1: with {@code token_hash} actors (the default) a key rotation changes every actor, so
   * no execution recorded before it is matched after it, key or not: an identical retry runs again.
   */
  static boolean rotationsAllowed(World.ActorMode mode) {
    return mode != World.ActorMode.TOKEN_HASH;
  }
}
