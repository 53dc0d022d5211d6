package dev.tally.core.store.internal;

import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.execution.MatchKind;
import dev.tally.core.execution.RpcError;

/**
 * One stored execution with its retained result bytes, the estimated memory it takes and whether it
 * must never be evicted. Immutable; a change replaces the slot.
 */
record Slot(Execution execution, byte[] result, int weight, boolean pinned) {

  /** Fixed cost of a record, its timeline, indexes and map entries, in bytes (an estimate). */
  private static final int BASE_WEIGHT = 640;

  static Slot of(Execution execution, byte[] result) {
    return new Slot(execution, result, estimate(execution, result), isPinned(execution));
  }

  /**
   * Whether the record can hold its match key at some instant: its state does not release the key.
   * Time alone never makes a record hold again once it stopped (see {@link
   * Execution#holdsKey(java.time.Instant)}).
   */
  static boolean mayHoldKey(Execution e) {
    return !e.state().releasesKey();
  }

  /** See {@link ExecutionTable#isPinned(Execution)}. */
  static boolean isPinned(Execution e) {
    if (e.matchKind() == MatchKind.FINGERPRINT && e.state() == ExecutionState.DELIVERED) {
      return false;
    }
    return !e.state().isTerminal() || mayHoldKey(e);
  }

  /** A rough estimate of the heap a record takes: strings as UTF-16, plus the result bytes. */
  static int estimate(Execution e, byte[] result) {
    long chars =
        (long) e.matchKey().length()
            + e.actor().length()
            + e.tool().length()
            + e.fingerprint().length()
            + e.intentScope().length()
            + e.summary().length();
    if (e.lease() != null) {
      chars += e.lease().owner().length() + 16;
    }
    RpcError error = e.error();
    if (error != null) {
      chars += error.message().length() + 16;
    }
    long bytes = BASE_WEIGHT + 2 * chars + 32L * e.timeline().size();
    if (result != null) {
      bytes += result.length + 16L;
    }
    return (int) Math.min(Integer.MAX_VALUE, bytes);
  }
}
