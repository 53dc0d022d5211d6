package dev.tally.core.store.journal;

import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Per-execution locks, and the stages that hold a read back until the version it returns is
 * durable.
 *
 * <p>Implementation note: a writer holds the id's lock from applying a change to the table until it
 * queued the record and {@link #track tracked} its stage. A reader that read version {@code v} and
 * then takes the same lock therefore finds the stage of {@code v}'s record (or of a later one,
 * which is durable only after it) in {@link #unsynced}, or nothing when every record of the id is
 * durable. A stage whose write failed stays there, so reads of that id fail as it did.
 */
final class Visibility {
  private static final int STRIPES = 256;
  private static final CompletableFuture<Void> DURABLE = CompletableFuture.completedFuture(null);
  private static final ThreadLocal<List<Runnable>> AFTER_UNLOCK =
      ThreadLocal.withInitial(ArrayList::new);

  private final Object[] stripes = new Object[STRIPES];
  private final ConcurrentHashMap<ExecutionId, CompletableFuture<Void>> unsynced =
      new ConcurrentHashMap<>();

  Visibility() {
    for (int i = 0; i < STRIPES; i++) {
      stripes[i] = new Object();
    }
  }

  Object lockFor(ExecutionId id) {
    return stripes[Math.floorMod(id.hashCode(), STRIPES)];
  }

  /** Remembers the stage of the newest record of {@code id}; the caller holds its lock. */
  CompletableFuture<Void> track(ExecutionId id, CompletableFuture<Void> durable) {
    unsynced.put(id, durable);
    // Kept on failure: the change never became durable, so reads of this id must fail too.
    durable.thenRun(() -> unsynced.remove(id, durable));
    return durable;
  }

  /**
   * Completes once the newest queued record of {@code id} is durable; the caller holds its lock.
   */
  CompletableFuture<Void> durableOf(ExecutionId id) {
    CompletableFuture<Void> f = unsynced.get(id);
    return f == null ? DURABLE : f;
  }

  /**
   * Completes once the version of {@code id} read just before is durable. Taking the id's lock
   * waits out a writer that applied that version but has not queued its record yet.
   */
  CompletableFuture<Void> whenDurable(ExecutionId id) {
    synchronized (lockFor(id)) {
      return durableOf(id);
    }
  }

  CompletableFuture<Optional<Execution>> whenDurable(Optional<Execution> read) {
    return read.isEmpty()
        ? CompletableFuture.completedFuture(read)
        : whenDurable(read.get().id()).thenApply(v -> read);
  }

  CompletableFuture<Void> whenDurable(List<Execution> read) {
    List<CompletableFuture<Void>> pending = new ArrayList<>();
    for (Execution e : read) {
      CompletableFuture<Void> f = whenDurable(e.id());
      if (f != DURABLE) {
        pending.add(f);
      }
    }
    return pending.isEmpty()
        ? DURABLE
        : CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new));
  }

  /**
   * Like {@link #whenDurable(Optional)} for a waiter that the table completes. The table notifies
   * waiters from inside the writing call, where this thread may hold the id's lock and not have
   * queued the record yet; then the check runs once the lock is released ({@link #runAfterUnlock}).
   */
  CompletableFuture<Optional<Execution>> whenDurableLater(Optional<Execution> read) {
    if (read.isEmpty() || !Thread.holdsLock(lockFor(read.get().id()))) {
      return whenDurable(read);
    }
    CompletableFuture<Optional<Execution>> out = new CompletableFuture<>();
    AFTER_UNLOCK
        .get()
        .add(
            () ->
                whenDurable(read)
                    .whenComplete(
                        (v, err) -> {
                          if (err != null) {
                            out.completeExceptionally(err);
                          } else {
                            out.complete(v);
                          }
                        }));
    return out;
  }

  static void runAfterUnlock() {
    List<Runnable> actions = AFTER_UNLOCK.get();
    if (actions.isEmpty()) {
      return;
    }
    List<Runnable> copy = List.copyOf(actions);
    actions.clear();
    for (Runnable r : copy) {
      r.run();
    }
  }
}
