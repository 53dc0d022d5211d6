package dev.tally.core.store.internal;

import dev.tally.core.store.StoreException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link Budget} for a table that must keep every record until its retention ends (the journal
 * store: dropping a finished record early could turn a retry into a second action). It never
 * evicts; it counts the estimated weight of all records and refuses a new record once they fill
 * {@code maxWeight}, so that a store kept in memory refuses new calls with a clear error instead of
 * exhausting the heap (and, after the crash, failing the same way while it recovers). Changes to
 * records already held, and records restored at start, are always accepted.
 */
final class RetainingBudget implements Budget {
  private final long maxWeight;
  private final AtomicLong total = new AtomicLong();

  RetainingBudget(long maxWeight) {
    this.maxWeight = maxWeight;
  }

  @Override
  public void admit(Slot next) {
    long after = total.addAndGet(next.weight());
    if (after > maxWeight) {
      total.addAndGet(-next.weight());
      throw new StoreException(
          StoreException.Code.UNAVAILABLE,
          "execution store full: the executions it keeps until their retention ends take about "
              + (after - next.weight())
              + " of maxBytes="
              + maxWeight
              + " bytes; new calls are refused until retention purges make room (raise the heap"
              + " and the bound, or shorten resultRetention)");
    }
  }

  @Override
  public void replaced(Slot old, Slot next) {
    long delta = (next == null ? 0 : next.weight()) - (old == null ? 0 : old.weight());
    if (delta != 0) {
      total.addAndGet(delta);
    }
  }

  @Override
  public void settle() {}

  @Override
  public boolean hasRoom() {
    return total.get() + TYPICAL_RECORD_WEIGHT <= maxWeight;
  }

  @Override
  public long pinnedWeight() {
    return total.get();
  }

  @Override
  public long evictableWeight() {
    return 0;
  }
}
