package dev.tally.store.postgres;

import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;

/**
 * The callers of {@link PostgresExecutionStore#awaitChange} and what wakes them: a change this
 * store made itself ({@link #changed}), a notification from another replica ({@link #notified}),
 * or, while notifications are off or down, a poll every {@code pollInterval}. A waiter registers
 * before it reads the record and every wake-up re-reads or carries the record, so no change is
 * missed; a waiter always ends by {@code maxWait} with the record as it is then.
 */
final class ChangeFeed {
  /** How a waiter finds records: by one id, and by many ids at once (for a poll). */
  interface Reader {
    Future<Optional<Execution>> find(ExecutionId id);

    Future<List<Execution>> findAll(List<ExecutionId> ids);
  }

  private static final class Waiter {
    final ExecutionId id;
    final long afterVersion;
    final CompletableFuture<Optional<Execution>> future = new CompletableFuture<>();
    final AtomicBoolean settled = new AtomicBoolean();
    volatile long timer = -1;

    Waiter(ExecutionId id, long afterVersion) {
      this.id = id;
      this.afterVersion = afterVersion;
    }
  }

  private final Vertx vertx;
  private final Reader reader;
  private final BooleanSupplier listening;
  private final ConcurrentHashMap<ExecutionId, List<Waiter>> byId = new ConcurrentHashMap<>();
  private final AtomicBoolean polling = new AtomicBoolean();
  private final LongAdder notifications = new LongAdder();
  private final LongAdder polls = new LongAdder();
  private final AtomicInteger waiting = new AtomicInteger();
  private final long pollTimer;

  ChangeFeed(Vertx vertx, Reader reader, BooleanSupplier listening, Duration pollInterval) {
    this.vertx = vertx;
    this.reader = reader;
    this.listening = listening;
    this.pollTimer = vertx.setPeriodic(pollInterval.toMillis(), t -> pollIfNeeded());
  }

  CompletableFuture<Optional<Execution>> await(
      ExecutionId id, long afterVersion, Duration maxWait) {
    Waiter w = new Waiter(id, afterVersion);
    boolean waits = !maxWait.isNegative() && !maxWait.isZero();
    if (waits) {
      byId.compute(
          id,
          (k, list) -> {
            List<Waiter> l = list == null ? new ArrayList<>(2) : list;
            l.add(w);
            return l;
          });
      w.timer = vertx.setTimer(Math.max(1, maxWait.toMillis()), t -> timedOut(w));
      if (w.future.isDone()) {
        vertx.cancelTimer(w.timer);
      }
    }
    reader
        .find(id)
        .onComplete(
            ar -> {
              if (ar.failed()) {
                finish(w, null, ar.cause());
              } else if (!waits
                  || ar.result().isEmpty()
                  || ar.result().get().version() > afterVersion) {
                finish(w, ar.result(), null);
              } else if (!w.future.isDone() && w.settled.compareAndSet(false, true)) {
                waiting.incrementAndGet();
                if (w.future.isDone() && w.settled.compareAndSet(true, false)) {
                  waiting.decrementAndGet();
                }
              }
            });
    return w.future;
  }

  private void timedOut(Waiter w) {
    remove(w);
    if (w.future.isDone()) {
      return;
    }
    reader.find(w.id).onComplete(ar -> finish(w, ar.result(), ar.cause()));
  }

  private void finish(Waiter w, Optional<Execution> value, Throwable error) {
    remove(w);
    if (w.settled.compareAndSet(true, false)) {
      waiting.decrementAndGet();
    }
    if (w.timer >= 0) {
      vertx.cancelTimer(w.timer);
    }
    if (error != null) {
      w.future.completeExceptionally(error);
    } else {
      w.future.complete(value);
    }
  }

  private void remove(Waiter w) {
    byId.computeIfPresent(
        w.id,
        (k, list) -> {
          list.remove(w);
          return list.isEmpty() ? null : list;
        });
  }

  /** A record this store wrote: wakes its waiters with it. */
  void changed(Execution e) {
    for (Waiter w : waiting(e.id(), e.version())) {
      finish(w, Optional.of(e), null);
    }
  }

  /** A record this store deleted: its waiters end with empty. */
  void gone(ExecutionId id) {
    for (Waiter w : waiting(id, Long.MAX_VALUE)) {
      finish(w, Optional.empty(), null);
    }
  }

  /** A notification payload {@code <id>:<version>} or {@code <id>:gone}. */
  void notified(String payload) {
    notifications.increment();
    int colon = payload == null ? -1 : payload.lastIndexOf(':');
    if (colon < 0 || !ExecutionId.isValid(payload.substring(0, colon))) {
      return;
    }
    ExecutionId id = new ExecutionId(payload.substring(0, colon));
    String tail = payload.substring(colon + 1);
    if (tail.equals("gone")) {
      gone(id);
      return;
    }
    long version;
    try {
      version = Long.parseLong(tail);
    } catch (NumberFormatException e) {
      return;
    }
    if (!waiting(id, version, false).isEmpty()) {
      reader.find(id).onSuccess(found -> deliver(id, found));
    }
  }

  private void deliver(ExecutionId id, Optional<Execution> found) {
    if (found.isEmpty()) {
      gone(id);
    } else {
      changed(found.get());
    }
  }

  /** Reads every waited-for record once now (after the listener missed notifications). */
  void catchUp() {
    poll();
  }

  private void pollIfNeeded() {
    if (!byId.isEmpty() && !listening.getAsBoolean()) {
      poll();
    }
  }

  private void poll() {
    if (byId.isEmpty() || !polling.compareAndSet(false, true)) {
      return;
    }
    polls.increment();
    List<ExecutionId> ids = new ArrayList<>(byId.keySet());
    reader
        .findAll(ids)
        .onComplete(
            ar -> {
              polling.set(false);
              if (ar.failed()) {
                return;
              }
              Map<ExecutionId, Execution> found = new HashMap<>();
              for (Execution e : ar.result()) {
                found.put(e.id(), e);
              }
              for (ExecutionId id : ids) {
                deliver(id, Optional.ofNullable(found.get(id)));
              }
            });
  }

  private List<Waiter> waiting(ExecutionId id, long version) {
    return waiting(id, version, true);
  }

  /** The waiters of {@code id} that wait for a version below {@code version}, removed if asked. */
  private List<Waiter> waiting(ExecutionId id, long version, boolean take) {
    List<Waiter> ready = new ArrayList<>(0);
    byId.computeIfPresent(
        id,
        (k, list) -> {
          for (Waiter w : list) {
            if (w.afterVersion < version) {
              ready.add(w);
            }
          }
          if (take) {
            list.removeAll(ready);
          }
          return list.isEmpty() ? null : list;
        });
    return ready;
  }

  long notifications() {
    return notifications.sum();
  }

  long polls() {
    return polls.sum();
  }

  /** Callers whose first read found no newer version and who now wait for a change. */
  int waiting() {
    return waiting.get();
  }

  /** Ends every wait with {@code error} and stops polling. */
  void close(Throwable error) {
    vertx.cancelTimer(pollTimer);
    for (ExecutionId id : new ArrayList<>(byId.keySet())) {
      List<Waiter> list = byId.remove(id);
      if (list != null) {
        for (Waiter w : list) {
          if (w.timer >= 0) {
            vertx.cancelTimer(w.timer);
          }
          if (w.settled.compareAndSet(true, false)) {
            waiting.decrementAndGet();
          }
          w.future.completeExceptionally(error);
        }
      }
    }
  }
}
