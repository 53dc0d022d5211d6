package dev.tally.core.store.internal;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Policy;
import com.github.benmanes.caffeine.cache.RemovalCause;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.store.StoreException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * A {@link Budget} over a Caffeine cache whose pinned entries weigh zero (so size-based eviction
 * skips them, as the Caffeine FAQ "Pinning entries" describes) and whose evictable entries weigh
 * their estimate. It tracks the pinned weight itself, refuses new pinned records beyond {@code
 * maxWeight}, and lowers the cache's maximum to {@code maxWeight - pinned} so that pinned and
 * evictable records together stay within {@code maxWeight} (give or take {@code maxWeight / 64}).
 */
final class PinningBudget implements Budget {
  private final Cache<ExecutionId, Slot> cache;
  private final Policy.Eviction<ExecutionId, Slot> eviction;
  private final long maxWeight;
  private final long slack;
  private final AtomicLong pinned = new AtomicLong();
  private volatile long maximum;

  PinningBudget(Cache<ExecutionId, Slot> cache, long maxWeight) {
    this.cache = cache;
    this.eviction =
        cache
            .policy()
            .eviction()
            .orElseThrow(() -> new IllegalStateException("cache is not bounded by weight"));
    this.maxWeight = maxWeight;
    this.slack = Math.max(1, maxWeight / 64);
    this.maximum = maxWeight;
  }

  /**
   * A cache bounded to {@code maxWeight} in which pinned slots weigh zero; evictions run on the
   * writing thread and report the evicted record to {@code onEvict} inside the atomic removal.
   */
  static Cache<ExecutionId, Slot> newCache(long maxWeight, Consumer<Slot> onEvict) {
    return Caffeine.newBuilder()
        .maximumWeight(maxWeight)
        .weigher((ExecutionId id, Slot s) -> s.pinned() ? 0 : s.weight())
        .evictionListener(
            (ExecutionId id, Slot s, RemovalCause cause) -> {
              if (s != null) {
                onEvict.accept(s);
              }
            })
        .executor(Runnable::run)
        .build();
  }

  @Override
  public void admit(Slot next) {
    if (!next.pinned()) {
      return;
    }
    long after = pinned.addAndGet(next.weight());
    if (after > maxWeight) {
      pinned.addAndGet(-next.weight());
      throw new StoreException(
          StoreException.Code.UNAVAILABLE,
          "memory store full: executions that hold a key or are in flight take about "
              + (after - next.weight())
              + " of maxWeightBytes="
              + maxWeight
              + " bytes; new calls are refused until some finish or are purged");
    }
  }

  @Override
  public void replaced(Slot old, Slot next) {
    long delta = pinnedWeight(next) - pinnedWeight(old);
    if (delta != 0) {
      pinned.addAndGet(delta);
    }
  }

  private static long pinnedWeight(Slot slot) {
    return slot != null && slot.pinned() ? slot.weight() : 0;
  }

  @Override
  public void settle() {
    long target = target();
    long current = maximum;
    if (Math.abs(target - current) < slack && (target != 0 || current == 0)) {
      return;
    }
    synchronized (this) {
      target = target();
      eviction.setMaximum(target);
      maximum = target;
    }
  }

  private long target() {
    return Math.max(0, maxWeight - pinned.get());
  }

  @Override
  public boolean hasRoom() {
    return pinned.get() + TYPICAL_RECORD_WEIGHT <= maxWeight;
  }

  @Override
  public long pinnedWeight() {
    return pinned.get();
  }

  @Override
  public long evictableWeight() {
    cache.cleanUp();
    return eviction.weightedSize().orElse(0L);
  }
}
