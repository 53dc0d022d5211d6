package dev.tally.core.store.internal;

import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Callers waiting for a record to change. A waiter registers before it re-reads the record and
 * every writer notifies after it wrote, so no change is missed. Timeouts use {@link
 * CompletableFuture#completeOnTimeout}: no thread blocks, and a waiter completed early cancels its
 * timer.
 */
final class Waiters {
  private final ConcurrentHashMap<ExecutionId, List<Waiter>> byId = new ConcurrentHashMap<>();

  /** One waiting caller; completed with the changed record, or with null on timeout or removal. */
  private static final class Waiter {
    final long afterVersion;
    final CompletableFuture<Execution> future = new CompletableFuture<>();

    Waiter(long afterVersion) {
      this.afterVersion = afterVersion;
    }
  }

  CompletableFuture<Optional<Execution>> await(
      ExecutionId id,
      long afterVersion,
      Duration maxWait,
      Function<ExecutionId, Optional<Execution>> lookup) {
    Optional<Execution> now = lookup.apply(id);
    if (now.isEmpty()
        || now.get().version() > afterVersion
        || maxWait.isNegative()
        || maxWait.isZero()) {
      return CompletableFuture.completedFuture(now);
    }
    Waiter w = new Waiter(afterVersion);
    byId.compute(
        id,
        (k, list) -> {
          List<Waiter> l = list == null ? new ArrayList<>(2) : list;
          l.add(w);
          return l;
        });
    Optional<Execution> again = lookup.apply(id);
    if (again.isEmpty() || again.get().version() > afterVersion) {
      remove(id, w);
      return CompletableFuture.completedFuture(again);
    }
    w.future.completeOnTimeout(null, TimeUnit.NANOSECONDS.convert(maxWait), TimeUnit.NANOSECONDS);
    return w.future.thenApply(
        e -> {
          if (e != null) {
            return Optional.of(e);
          }
          remove(id, w);
          return lookup.apply(id);
        });
  }

  /** Completes the waiters of {@code e}'s record that wait for a version below its own. */
  void changed(Execution e) {
    List<Waiter> ready = new ArrayList<>(0);
    byId.computeIfPresent(
        e.id(),
        (k, list) -> {
          list.removeIf(
              w -> {
                if (w.afterVersion < e.version()) {
                  ready.add(w);
                  return true;
                }
                return false;
              });
          return list.isEmpty() ? null : list;
        });
    for (Waiter w : ready) {
      w.future.complete(e);
    }
  }

  /** Completes every waiter of a removed record; each then reads the record again (gone). */
  void gone(ExecutionId id) {
    List<Waiter> list = byId.remove(id);
    if (list != null) {
      for (Waiter w : list) {
        w.future.complete(null);
      }
    }
  }

  /** Completes every waiter exceptionally with {@code error}. */
  void failAll(Throwable error) {
    for (ExecutionId id : byId.keySet()) {
      List<Waiter> list = byId.remove(id);
      if (list != null) {
        for (Waiter w : list) {
          w.future.completeExceptionally(error);
        }
      }
    }
  }

  private void remove(ExecutionId id, Waiter w) {
    byId.computeIfPresent(
        id,
        (k, list) -> {
          list.remove(w);
          return list.isEmpty() ? null : list;
        });
  }
}
