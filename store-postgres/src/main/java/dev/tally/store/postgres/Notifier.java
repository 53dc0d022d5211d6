package dev.tally.store.postgres;

import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionState;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * Tells the other replicas about this store's changes after they committed: {@code NOTIFY
 * tally_executions, '<id>:<version>'}, many payloads per statement. Only changes a waiter on
 * another replica can be waiting for are sent ({@link #wakesWaiters}); deletes are still announced
 * by the trigger (see {@link Schema}).
 *
 * <p>Implementation note: PostgreSQL serializes the commits of transactions that notify (they hold
 * one database-wide lock through the commit, including the WAL flush), so a trigger that notifies
 * inside every write limits a durable store to one commit per flush instead of the pool's group
 * commits (about four times fewer calls per second, bench/README.md "PostgreSQL store"). The writes
 * therefore commit without notifying and this class sends the payloads afterwards in its own
 * statement, at most one at a time, batching what queued meanwhile; that statement commits with
 * {@code synchronous_commit = off}, since a notification is a wake-up hint and not data: one lost
 * in a server crash costs a waiter at most its bounded wait (the listener re-reads every waited
 * record when it reconnects).
 */
final class Notifier {
  /** The most payloads one statement carries (each at most ~40 bytes). */
  static final int MAX_BATCH = 500;

  private final Db db;
  private final ConcurrentLinkedQueue<String> queue = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean sending = new AtomicBoolean();
  private final LongAdder sent = new LongAdder();
  private final LongAdder announced = new LongAdder();

  Notifier(Db db) {
    this.db = db;
  }

  /**
   * Whether a change away from {@code before} can end a wait on another replica: waits are on
   * records that have no outcome yet (the gate attaches to accepted, authorized and dispatched
   * executions), so a change of a record that already holds a result, or of a final one, wakes
   * nobody and is not announced.
   */
  static boolean wakesWaiters(ExecutionState before) {
    return !before.hasResult() && !before.isTerminal();
  }

  /** Announces {@code after}, a committed change of a record that was in state {@code before}. */
  void changed(ExecutionState before, Execution after) {
    if (!wakesWaiters(before)) {
      return;
    }
    announced.increment();
    queue.add(after.id().value() + ":" + after.version());
    sendIfIdle();
  }

  /** Changes queued to be announced. */
  long announced() {
    return announced.sum();
  }

  /** Statements sent (each one round trip; not counted in the store's round trips). */
  long statements() {
    return sent.sum();
  }

  private void sendIfIdle() {
    while (!queue.isEmpty() && sending.compareAndSet(false, true)) {
      List<String> batch = new ArrayList<>();
      String p;
      while (batch.size() < MAX_BATCH && (p = queue.poll()) != null) {
        batch.add(p);
      }
      if (!batch.isEmpty()) {
        send(batch);
        return;
      }
      sending.set(false);
    }
  }

  private void send(List<String> batch) {
    sent.increment();
    db.runQuietly(Sql.NOTIFY, Tuple.of((Object) batch.toArray(String[]::new)))
        .onComplete(
            ar -> {
              // A failed notify is dropped: waiters end by their bound, or by the listener's
              // catch-up once the database is back.
              sending.set(false);
              sendIfIdle();
            });
  }
}
