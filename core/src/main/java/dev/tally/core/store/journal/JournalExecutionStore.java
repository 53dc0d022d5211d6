package dev.tally.core.store.journal;

import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.execution.Lease;
import dev.tally.core.execution.Transition;
import dev.tally.core.store.Claim;
import dev.tally.core.store.ExecutionQuery;
import dev.tally.core.store.ExecutionStore;
import dev.tally.core.store.Page;
import dev.tally.core.store.StoreException;
import dev.tally.core.store.internal.ExecutionTable;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The embedded durable {@link ExecutionStore} ({@code --store journal:DIR}; ARCHITECTURE.md §8): an
 * append-only, checksummed log in one directory, rebuilt into memory at start, compacted in the
 * background. Every stage it returns completes only after the change it reports is on disk ({@link
 * java.nio.channels.FileChannel#force}); it survives {@code kill -9} at any instant and relies on
 * no clean close.
 *
 * <p><b>Format</b> (version 1; full description in {@code docs/journal-format.md}). Files {@code
 * journal-<seq>.log} (segments) and {@code snapshot-<seq>.snap} start with a 16-byte header ({@code
 * "TLYJ"}, u16 format version, u16 kind, u64 sequence) followed by frames {@code [u32 length][u32
 * crc32c(length ‖ payload)][payload]}. A payload holds one or more records: {@code put} (the full
 * execution after the change as a JSON document, plus the result bytes the change stored, if any)
 * or {@code purge} (the id). Recovery keeps the record with the highest version per id (result
 * bytes carry over while the record says they are retained) and drops purged ids. Readers ignore
 * unknown JSON fields and treat missing optional ones as absent.
 *
 * <p><b>Writing</b>. A mutation is validated and applied to the in-memory {@link ExecutionTable}
 * (the atomic claim and the compare-and-set happen there), its record is queued while a per-id lock
 * is held (so records of one execution are queued in the order they were applied), and a single
 * writer thread writes everything queued as one frame, forces once and completes all those stages
 * (group commit: concurrent callers share an fsync). Callers never write, force or wait on a lock
 * held across I/O; stages complete on the writer thread, so dependent actions must not block.
 *
 * <p><b>Visible before durable, in the safe direction only</b>. Between the apply and the fsync, a
 * change exists in memory only, and one thing can observe it: a concurrent claim on the same key
 * loses against a claim that is not yet durable. Every stage that hands out a record ({@code find},
 * {@code findHolder}, a losing claim, {@code awaitChange}, {@code list}, {@code lapsed}, {@code
 * result}) completes only once the version it returns is durable, and fails with {@code
 * UNAVAILABLE} if that write failed. So a retry may wait on a claim that a crash then erases (it
 * finds nothing after restart and starts anew), but nothing is dispatched, replayed or reported on
 * the strength of a change that is not on disk: the dispatcher waits for the {@code dispatched}
 * stage before sending a byte upstream.
 *
 * <p><b>Failing closed</b>. If a write or fsync fails, its stages and every later mutation fail
 * with {@link StoreException.Code#UNAVAILABLE} and {@link #isWritable()} turns false until the
 * store is reopened; success is never reported for a write that is not durable. The records in
 * memory that did not reach disk stay unreadable (their reads fail too); after a restart, what is
 * on disk is the truth. A failed fsync may still have written its bytes, so a change reported as
 * failed can reappear after a restart — the reverse never happens.
 *
 * <p><b>At start</b>, unfinished files are cleaned up, a torn tail of the newest segment (a crash
 * during a write) is truncated to the last whole frame and reported in one log line with the byte
 * offset, and a damaged frame followed by valid ones, or damage in any older file, refuses the
 * start with {@link StoreException.Code#CORRUPT} naming file and offset: that is corruption, not a
 * torn write. Executions left {@code dispatched} (not awaiting input) have lost their owner with
 * the previous process; they are moved to {@code outcome_unknown} durably before {@link #open}
 * returns. A second store on the same directory, in this process or another, is refused.
 */
public final class JournalExecutionStore implements ExecutionStore {
  private static final System.Logger LOG = System.getLogger(JournalExecutionStore.class.getName());
  private static final int STRIPES = 256;
  private static final CompletableFuture<Void> DURABLE = CompletableFuture.completedFuture(null);
  private static final ThreadLocal<List<Runnable>> AFTER_UNLOCK =
      ThreadLocal.withInitial(ArrayList::new);

  private final JournalOptions options;
  private final JournalDir dir;
  private final ExecutionTable table;
  private final GroupWriter writer;
  private final Compactor compactor;
  private final Object[] stripes = new Object[STRIPES];

  /** The newest record of an id that is queued but not yet durable (or whose write failed). */
  private final ConcurrentHashMap<ExecutionId, CompletableFuture<Void>> unsynced =
      new ConcurrentHashMap<>();

  private final Object closeLock = new Object();
  private volatile boolean closed;

  private JournalExecutionStore(
      JournalOptions options,
      JournalDir dir,
      ExecutionTable table,
      GroupWriter writer,
      Compactor compactor) {
    this.options = options;
    this.dir = dir;
    this.table = table;
    this.writer = writer;
    this.compactor = compactor;
    for (int i = 0; i < STRIPES; i++) {
      stripes[i] = new Object();
    }
  }

  /**
   * Opens (or creates) the journal in {@code options.dir()}, recovers it and starts the writer.
   * Blocks for the recovery I/O: call it at start-up, not on an event loop. Fails with {@link
   * StoreException} ({@code UNAVAILABLE}: locked by another store or unreadable; {@code CORRUPT}:
   * damaged beyond a torn tail).
   */
  public static JournalExecutionStore open(JournalOptions options) {
    return open(options, ChannelFactory.DEFAULT, Compactor.Hooks.NONE);
  }

  static JournalExecutionStore open(
      JournalOptions options, ChannelFactory channels, Compactor.Hooks hooks) {
    Objects.requireNonNull(options, "options");
    JournalDir dir = JournalDir.lock(options.dir(), channels);
    Recovery.Result recovered;
    try {
      recovered = Recovery.recover(dir);
    } catch (IOException e) {
      dir.close();
      throw new StoreException(
          StoreException.Code.UNAVAILABLE,
          "cannot read the journal in " + options.dir() + ": " + e,
          e);
    } catch (RuntimeException e) {
      dir.close();
      throw e;
    }
    ExecutionTable table = ExecutionTable.unbounded(options.maxResultBytes());
    LiveBytes live = new LiveBytes();
    for (LogState.Entry e : recovered.state().entries()) {
      table.restore(e.execution(), e.result());
      live.put(e.execution(), e.docBytes(), e.result());
    }
    GroupWriter writer =
        new GroupWriter(
            dir,
            options,
            recovered.segment(),
            recovered.segmentSeq(),
            recovered.segmentSize(),
            recovered.closedBytes(),
            live);
    Compactor compactor = new Compactor(dir, options, recovered.snapshotSeq(), hooks);
    JournalExecutionStore store = new JournalExecutionStore(options, dir, table, writer, compactor);
    writer.start(compactor);
    try {
      store.settleOrphans();
    } catch (RuntimeException e) {
      store.close();
      throw e;
    }
    return store;
  }

  /**
   * Moves executions dispatched by the previous process (not awaiting input) to outcome_unknown.
   */
  private void settleOrphans() {
    Instant now = options.clock().instant();
    List<Execution> orphans = new ArrayList<>();
    table.forEach(
        s -> {
          Execution e = s.execution();
          if (e.state() == ExecutionState.DISPATCHED && !e.awaitingInput()) {
            orphans.add(e);
          }
        });
    List<CompletableFuture<Execution>> writes = new ArrayList<>();
    for (Execution e : orphans) {
      writes.add(
          transition(Transition.to(e, ExecutionState.OUTCOME_UNKNOWN, now).clearingLease())
              .toCompletableFuture());
    }
    try {
      CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)).join();
    } catch (CompletionException e) {
      throw e.getCause() instanceof RuntimeException re ? re : e;
    }
    if (!orphans.isEmpty()) {
      LOG.log(
          System.Logger.Level.WARNING,
          "journal "
              + dir.path()
              + ": "
              + orphans.size()
              + " execution(s) were dispatched when the previous process stopped; recorded as"
              + " outcome_unknown");
    }
  }

  // ---- mutations -------------------------------------------------------------------------------

  @Override
  public CompletionStage<Claim> claim(Execution candidate, Instant now) {
    StoreException refused = refuseWrite();
    if (refused != null) {
      return CompletableFuture.failedFuture(refused);
    }
    try {
      Objects.requireNonNull(candidate, "candidate");
      Claim claim;
      CompletableFuture<Void> durable = null;
      synchronized (lockFor(candidate.id())) {
        claim = table.claim(candidate, now);
        if (claim instanceof Claim.Won) {
          durable = append(new JournalEntry.Put(claim.execution(), null));
        }
      }
      if (durable != null) {
        return durable.thenApply(v -> claim);
      }
      return whenDurable(claim.execution().id()).thenApply(v -> claim);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    } finally {
      runAfterUnlock();
    }
  }

  @Override
  public CompletionStage<Execution> transition(Transition t) {
    StoreException refused = refuseWrite();
    if (refused != null) {
      return CompletableFuture.failedFuture(refused);
    }
    try {
      Objects.requireNonNull(t, "transition");
      ExecutionTable.Stored stored;
      CompletableFuture<Void> durable;
      synchronized (lockFor(t.id())) {
        stored = table.transition(t);
        durable = append(new JournalEntry.Put(stored.execution(), stored.result()));
      }
      return durable.thenApply(v -> stored.execution());
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    } finally {
      runAfterUnlock();
    }
  }

  @Override
  public CompletionStage<Execution> touch(
      ExecutionId id, long expectedVersion, Lease lease, boolean awaitingInput) {
    StoreException refused = refuseWrite();
    if (refused != null) {
      return CompletableFuture.failedFuture(refused);
    }
    try {
      Objects.requireNonNull(id, "id");
      Execution touched;
      CompletableFuture<Void> durable;
      synchronized (lockFor(id)) {
        touched = table.touch(id, expectedVersion, lease, awaitingInput);
        durable = append(new JournalEntry.Put(touched, null));
      }
      return durable.thenApply(v -> touched);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    } finally {
      runAfterUnlock();
    }
  }

  @Override
  public CompletionStage<Integer> purge(Instant now, int limit) {
    StoreException refused = refuseWrite();
    if (refused != null) {
      return CompletableFuture.failedFuture(refused);
    }
    try {
      List<Execution> removed = table.purge(now, limit);
      List<CompletableFuture<Void>> writes = new ArrayList<>(removed.size());
      for (Execution e : removed) {
        // A transition that applied before the removal holds this lock until it queued its record,
        // so the purge record is queued after it.
        synchronized (lockFor(e.id())) {
          writes.add(append(new JournalEntry.Purge(e.id())));
        }
      }
      return CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new))
          .thenApply(v -> removed.size());
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    } finally {
      runAfterUnlock();
    }
  }

  /** Queues a record; the caller holds {@link #lockFor} of its id. */
  private CompletableFuture<Void> append(JournalEntry entry) {
    ExecutionId id = entry.id();
    CompletableFuture<Void> durable = writer.append(entry);
    unsynced.put(id, durable);
    // Kept on failure: the change never became durable, so reads of this id must fail too.
    durable.thenRun(() -> unsynced.remove(id, durable));
    return durable;
  }

  /** Why a mutation must be refused before it touches the table, or null. */
  private StoreException refuseWrite() {
    if (closed) {
      return closedError();
    }
    if (!writer.isWritable()) {
      return new StoreException(
          StoreException.Code.UNAVAILABLE,
          "the journal in " + options.dir() + " is read-only after a write failure");
    }
    return null;
  }

  // ---- reads -----------------------------------------------------------------------------------

  @Override
  public CompletionStage<Optional<Execution>> find(ExecutionId id) {
    return read(
        () -> {
          Objects.requireNonNull(id, "id");
          synchronized (lockFor(id)) {
            Optional<Execution> found = table.find(id);
            return durableOf(id).thenApply(v -> found);
          }
        });
  }

  @Override
  public CompletionStage<Optional<Execution>> findHolder(String matchKey, Instant now) {
    return read(() -> whenDurable(table.findHolder(matchKey, now)));
  }

  @Override
  public CompletionStage<Optional<byte[]>> result(ExecutionId id) {
    return read(
        () -> {
          Objects.requireNonNull(id, "id");
          synchronized (lockFor(id)) {
            Optional<byte[]> bytes = table.result(id);
            return durableOf(id).thenApply(v -> bytes);
          }
        });
  }

  @Override
  public CompletionStage<Optional<Execution>> awaitChange(
      ExecutionId id, long afterVersion, Duration maxWait) {
    return read(
        () -> table.awaitChange(id, afterVersion, maxWait).thenCompose(this::whenDurableLater));
  }

  @Override
  public CompletionStage<List<Execution>> lapsed(Instant now, int limit) {
    return read(
        () -> {
          List<Execution> found = table.lapsed(now, limit);
          return whenDurable(found).thenApply(v -> found);
        });
  }

  @Override
  public CompletionStage<Page> list(ExecutionQuery query) {
    return read(
        () -> {
          Page page = table.list(query);
          return whenDurable(page.items()).thenApply(v -> page);
        });
  }

  private <T> CompletionStage<T> read(Supplier<CompletableFuture<T>> op) {
    if (closed) {
      return CompletableFuture.failedFuture(closedError());
    }
    try {
      return op.get();
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * Completes once the newest queued record of {@code id} is durable; the caller holds its lock.
   */
  private CompletableFuture<Void> durableOf(ExecutionId id) {
    CompletableFuture<Void> f = unsynced.get(id);
    return f == null ? DURABLE : f;
  }

  /**
   * Completes once the version of {@code id} read just before is durable. Taking the id's lock
   * waits out a writer that applied that version but has not queued its record yet.
   */
  private CompletableFuture<Void> whenDurable(ExecutionId id) {
    synchronized (lockFor(id)) {
      return durableOf(id);
    }
  }

  private CompletableFuture<Optional<Execution>> whenDurable(Optional<Execution> read) {
    return read.isEmpty()
        ? CompletableFuture.completedFuture(read)
        : whenDurable(read.get().id()).thenApply(v -> read);
  }

  private CompletableFuture<Void> whenDurable(List<Execution> read) {
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
  private CompletableFuture<Optional<Execution>> whenDurableLater(Optional<Execution> read) {
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

  private static void runAfterUnlock() {
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

  private Object lockFor(ExecutionId id) {
    return stripes[Math.floorMod(id.hashCode(), STRIPES)];
  }

  // ---- the rest --------------------------------------------------------------------------------

  @Override
  public int maxResultBytes() {
    return options.maxResultBytes();
  }

  /** Open, and no write or fsync has failed since it was opened. */
  @Override
  public boolean isWritable() {
    return !closed && writer.isWritable();
  }

  /** Counters since the store was opened. */
  public JournalStats stats() {
    return new JournalStats(
        writer.fsyncs(), writer.recordsWritten(), writer.bytesWritten(), compactor.compactions());
  }

  /** Starts a compaction now (unless one runs) and completes when it is done (tests, admin). */
  CompletableFuture<Void> compactNow() {
    CompletableFuture<Void> out = new CompletableFuture<>();
    writer
        .control(
            () ->
                compactor
                    .start(writer)
                    .whenComplete(
                        (v, err) -> {
                          if (err != null) {
                            out.completeExceptionally(err);
                          } else {
                            out.complete(null);
                          }
                        }))
        .whenComplete(
            (v, err) -> {
              if (err != null) {
                out.completeExceptionally(err);
              }
            });
    return out;
  }

  /**
   * Writes what is queued, stops the writer and the compactor, ends pending waits with {@code
   * CLOSED} and releases the directory. Nothing depends on it for durability.
   */
  @Override
  public void close() {
    synchronized (closeLock) {
      if (closed) {
        return;
      }
      closed = true;
    }
    writer.stop();
    shutDown();
  }

  /** Stops at once, writing nothing more, as {@code kill -9} would (tests). */
  void halt() {
    synchronized (closeLock) {
      if (closed) {
        return;
      }
      closed = true;
    }
    writer.halt();
    shutDown();
  }

  private void shutDown() {
    compactor.stop();
    table.failWaiters(closedError());
    dir.close();
  }

  private StoreException closedError() {
    return new StoreException(
        StoreException.Code.CLOSED, "the journal store in " + options.dir() + " is closed");
  }
}
