package dev.tally.core.gate;

import dev.tally.core.actor.ActorResolver;
import dev.tally.core.contract.ContractRegistry;
import dev.tally.core.fingerprint.KeyRing;
import dev.tally.core.store.ExecutionStore;
import java.time.Clock;
import java.util.concurrent.CompletionStage;

/**
 * The one entry point both adapters call (ARCHITECTURE.md §6). Transport-free.
 *
 * <p>STUB: being implemented.
 */
public final class Gate {
  private Gate() {}

  public static Gate create(
      GateOptions options,
      ExecutionStore store,
      ContractRegistry contracts,
      KeyRing keys,
      ActorResolver actors,
      Clock clock) {
    throw new UnsupportedOperationException("stub");
  }

  /** Decides what to do with one {@code tools/call}. Never completes exceptionally. */
  public CompletionStage<Decision> admit(ToolCall call) {
    throw new UnsupportedOperationException("stub");
  }

  public ContractRegistry contracts() {
    throw new UnsupportedOperationException("stub");
  }
}
