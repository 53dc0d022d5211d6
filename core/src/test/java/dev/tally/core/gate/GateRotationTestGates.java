package dev.tally.core.gate;

import dev.tally.core.actor.ActorResolvers;
import dev.tally.core.fingerprint.KeyRing;
import dev.tally.core.store.ExecutionStore;
import java.time.Clock;

/** Gates with {@code token_hash} actors on a given ring, for rotation scenarios. */
final class GateRotationTestGates {
  private GateRotationTestGates() {}

  static Gate tokenHash(ExecutionStore store, KeyRing ring, Clock clock) {
    return Gate.builder(store, ring)
        .options(GateOptions.defaults("rotation"))
        .actors(ActorResolvers.tokenHash("Authorization", ring))
        .clock(clock)
        .build();
  }
}
