package dev.tally.core.store.journal;

import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.execution.Lease;
import dev.tally.core.execution.Transition;
import dev.tally.core.observe.Meter;
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
import java.util.function.Supplier;

/**
 * The embedded durable {@link ExecutionStore} ({@code --store journal:DIR}; ARCHITECTURE.md §8): an
 * append-only, checksummed log in one directory, rebuilt into memory at start, compacted in the
 * background. Every stage it returns completes only after the change it reports is on disk ({@link
 * java.nio.channels.FileChannel#force}); it survives {@code kill -9} at any instant and relies on
 * no clean close.
 *
 * <p><b>Format</b> (version 4, which also reads versions 1 to 3; full description in {@code
 * docs/journal-format.md}). Files {@code journal-<seq>.log} (segments) and {@code
 * snapshot-<seq>.snap} start with a 16-byte header ({@code "TLYJ"}, u16 format version, u16 kind,
 * u64 sequence) followed by frames {@code [u32 length][u32 crc32c(length ‖ payload)][payload]}. A
 * payload holds one or more records: {@code put} (the full execution after the change as a compact
 * binary document, plus the result bytes the change stored, if any), {@code purge} (the id) or,
 * from format 4, {@code rider} (bytes of the audit journals sharing the frame's fsync: {@link
 * RiderSink}). Recovery keeps the record with the highest version per id (result bytes carry over
 * while the record says they are retained) and drops purged ids. Readers ignore fields they do not
 * know and treat missing optional ones as absent. A segment of format 3 or later may end in zeros
 * the writer allocated ahead of its frames ({@link JournalOptions#preallocateBytes()}), so that a
 * group's fsync does not also commit a grown file size; a zero tail is its clean end.
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

  private final JournalOptions options;
  private final JournalDir dir;
  private final ExecutionTable table;
  private final GroupWriter writer;
  private final Compactor compactor;
  private final Visibility visibility = new Visibility();
  private final FullnessLog fullness = new FullnessLog(LOG);

  private final Object closeLock = new Object();
  private volatile boolean closed;
  private volatile List<Settled> settledAtOpen = List.of();
  private volatile CommitObserver observer = CommitObserver.NONE;

  /**
   * An execution that {@link #open} moved from {@code dispatched} (left by the previous process) to
   * {@code outcome_unknown}: the record {@code before} and {@code after} the transition.
   */
  public record Settled(Execution before, Execution after) {}

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
  }

  /**
   * Opens (or creates) the journal in {@code options.dir()}, recovers it and starts the writer.
   * Blocks for the recovery I/O: call it at start-up, not on an event loop. Fails with {@link
   * StoreException} ({@code UNAVAILABLE}: locked by another store or unreadable; {@code CORRUPT}:
   * damaged beyond a torn tail).
   */
  public static JournalExecutionStore open(JournalOptions options) {
    return open(options, null, ChannelFactory.DEFAULT, Compactor.Hooks.NONE);
  }

  /**
   * Opens the store like {@link #open(JournalOptions)} and, during recovery, hands {@code riders}
   * every rider its segments still hold, in the order they were written (see {@link
   * CommitObserver}): the audit trail rewrites from them what its unforced files may have lost. An
   * exception {@code riders} throws fails the open.
   */
  public static JournalExecutionStore open(JournalOptions options, RiderSink riders) {
    Objects.requireNonNull(riders, "riders");
    return open(options, riders, ChannelFactory.DEFAULT, Compactor.Hooks.NONE);
  }

  static JournalExecutionStore open(
      JournalOptions options, ChannelFactory channels, Compactor.Hooks hooks) {
    return open(options, null, channels, hooks);
  }

  static JournalExecutionStore open(
      JournalOptions options, RiderSink riders, ChannelFactory channels, Compactor.Hooks hooks) {
    Objects.requireNonNull(options, "options");
    JournalDir dir = JournalDir.lock(options.dir(), channels);
    Recovery.Result recovered;
    try {
      recovered = Recovery.recover(dir, riders);
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
    JournalExecutionStore store;
    try {
      ExecutionTable table =
          options.maxBytes() == 0
              ? ExecutionTable.unbounded(options.maxResultBytes())
              : ExecutionTable.retaining(options.maxResultBytes(), options.maxBytes());
      for (LogState.Entry e : recovered.state().entries()) {
        // The recovered state keeps its arrays unchanged: share them rather than hold each
        // result twice (a restart needed twice the running heap and failed with it).
        table.restoreOwned(e.execution(), e.result(), e.doc());
      }
      GroupWriter writer =
          new GroupWriter(
              dir,
              options,
              recovered.segment(),
              recovered.segmentSeq(),
              recovered.segmentSize(),
              recovered.segmentFileSize(),
              recovered.closedBytes(),
              recovered.riderBytes(),
              recovered.state());
      if (recovered.segmentVersion() < JournalFormat.FORMAT_VERSION) {
        // An older release wrote this segment: continue in a new one, so that every file holds
        // only records its header's version allows.
        writer.roll();
      }
      Compactor compactor =
          new Compactor(dir, options, recovered.snapshotSeq(), recovered.state(), hooks);
      store = new JournalExecutionStore(options, dir, table, writer, compactor);
    } catch (IOException e) {
      JournalDir.closeQuietly(recovered.segment());
      dir.close();
      throw new StoreException(
          StoreException.Code.UNAVAILABLE,
          "cannot start a new segment in " + options.dir() + ": " + e,
          e);
    } catch (RuntimeException e) {
      JournalDir.closeQuietly(recovered.segment());
      dir.close();
      throw e;
    }
    store.writer.start(store.compactor);
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
    for (Execution e : table.dispatched()) {
      if (!e.awaitingInput()) {
        orphans.add(e);
      }
    }
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
    List<Settled> settled = new ArrayList<>(orphans.size());
    for (int i = 0; i < orphans.size(); i++) {
      settled.add(new Settled(orphans.get(i), writes.get(i).join()));
    }
    settledAtOpen = List.copyOf(settled);
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
    return mutate(
        () -> {
          Objects.requireNonNull(candidate, "candidate");
          Claim claim;
          synchronized (visibility.lockFor(candidate.id())) {
            try {
              claim = table.claim(candidate, now);
            } catch (StoreException e) {
              if (e.code() == StoreException.Code.UNAVAILABLE) {
                fullness.refused(e);
              }
              throw e;
            }
            fullness.admitted();
            if (claim instanceof Claim.Won) {
              return append(null, claim.execution(), null, null).thenApply(v -> claim);
            }
          }
          return visibility.whenDurable(claim.execution().id()).thenApply(v -> claim);
        });
  }

  @Override
  public CompletionStage<Execution> transition(Transition t) {
    return mutate(
        () -> {
          Objects.requireNonNull(t, "transition");
          synchronized (visibility.lockFor(t.id())) {
            Execution before = predecessor(t.id(), t.expectedVersion());
            ExecutionTable.Stored stored = table.transition(t);
            return append(before, stored.execution(), stored.result(), stored.doc())
                .thenApply(v -> stored.execution());
          }
        });
  }

  @Override
  public CompletionStage<Execution> touch(
      ExecutionId id, long expectedVersion, Lease lease, boolean awaitingInput) {
    return mutate(
        () -> {
          Objects.requireNonNull(id, "id");
          synchronized (visibility.lockFor(id)) {
            Execution before = predecessor(id, expectedVersion);
            Execution touched = table.touch(id, expectedVersion, lease, awaitingInput);
            return append(before, touched, null, null).thenApply(v -> touched);
          }
        });
  }

  @Override
  public CompletionStage<Integer> purge(Instant now, int limit) {
    return mutate(
        () -> {
          List<Execution> removed = table.purge(now, limit);
          List<CompletableFuture<Void>> writes = new ArrayList<>(removed.size());
          for (Execution e : removed) {
            // A transition that applied before the removal holds this lock until it queued its
            // record, so the purge record is queued after it.
            synchronized (visibility.lockFor(e.id())) {
              writes.add(visibility.track(e.id(), writer.append(new JournalEntry.Purge(e.id()))));
            }
          }
          return CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new))
              .thenApply(v -> removed.size());
        });
  }

  /**
   * Runs a mutation unless the store is closed or read-only; its record's stage is created inside
   * the id's lock, and waiters the table notified there are answered once the lock is released.
   */
  private <T> CompletionStage<T> mutate(Supplier<CompletableFuture<T>> op) {
    StoreException refused = refuseWrite();
    if (refused != null) {
      return CompletableFuture.failedFuture(refused);
    }
    try {
      return op.get();
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    } finally {
      Visibility.runAfterUnlock();
    }
  }

  /**
   * Tells the observer, then queues the record of a change; the caller holds the lock of its id.
   * The change stands even if the observer fails: its record is queued, and the stage fails.
   */
  private CompletableFuture<Void> append(
      Execution before, Execution after, byte[] result, byte[] doc) {
    RuntimeException observerError = null;
    CommitObserver o = observer;
    if (o != CommitObserver.NONE) {
      try {
        o.applied(before, after);
      } catch (RuntimeException e) {
        observerError = e;
      }
    }
    CompletableFuture<Void> durable =
        visibility.track(after.id(), writer.append(new JournalEntry.Put(after, result, doc)));
    if (observerError != null) {
      RuntimeException error = observerError;
      return durable.thenCompose(v -> CompletableFuture.failedFuture(error));
    }
    return durable;
  }

  /** The stored version {@code version} of {@code id}, when that is the current one; else null. */
  private Execution predecessor(ExecutionId id, long version) {
    if (observer == CommitObserver.NONE) {
      return null;
    }
    return table.find(id).filter(e -> e.version() == version).orElse(null);
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
          synchronized (visibility.lockFor(id)) {
            Optional<Execution> found = table.find(id);
            return visibility.durableOf(id).thenApply(v -> found);
          }
        });
  }

  @Override
  public CompletionStage<Optional<Execution>> findHolder(String matchKey, Instant now) {
    return read(() -> visibility.whenDurable(table.findHolder(matchKey, now)));
  }

  @Override
  public CompletionStage<Optional<byte[]>> result(ExecutionId id) {
    return read(
        () -> {
          Objects.requireNonNull(id, "id");
          synchronized (visibility.lockFor(id)) {
            Optional<byte[]> bytes = table.result(id);
            return visibility.durableOf(id).thenApply(v -> bytes);
          }
        });
  }

  @Override
  public CompletionStage<Optional<Execution>> awaitChange(
      ExecutionId id, long afterVersion, Duration maxWait) {
    return read(
        () ->
            table.awaitChange(id, afterVersion, maxWait).thenCompose(visibility::whenDurableLater));
  }

  @Override
  public CompletionStage<List<Execution>> lapsed(Instant now, int limit) {
    return read(
        () -> {
          List<Execution> found = table.lapsed(now, limit);
          return visibility.whenDurable(found).thenApply(v -> found);
        });
  }

  @Override
  public CompletionStage<Page> list(ExecutionQuery query) {
    return read(
        () -> {
          Page page = table.list(query);
          return visibility.whenDurable(page.items()).thenApply(v -> page);
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

  // ---- the rest --------------------------------------------------------------------------------

  @Override
  public int maxResultBytes() {
    return options.maxResultBytes();
  }

  /** The journal's counters, its heap and the operator's {@code outcome_unknown} gauge. */
  @Override
  public void metrics(Meter m) {
    m.counter("tally.journal.fsyncs", "fsyncs of the journal", "", () -> stats().fsyncs());
    m.counter(
        "tally.journal.records",
        "records written to the journal",
        "",
        () -> stats().recordsWritten());
    m.counter(
        "tally.journal.bytes", "bytes written to the journal", "", () -> stats().bytesWritten());
    m.counter(
        "tally.journal.rider_bytes",
        "bytes of audit entries written into the journal's frames (included in"
            + " tally_journal_bytes_total)",
        "",
        () -> stats().riderBytes());
    m.counter("tally.journal.compactions", "journal compactions", "", () -> stats().compactions());
    m.gauge(
        "tally.store.executions",
        "executions the store holds in memory (each until its retention ends and it is purged)",
        "",
        () -> stats().executions());
    m.gauge(
        "tally.outcome_unknown.current",
        "executions in outcome_unknown now: each needs a status check or an operator",
        "",
        table::unknownCount);
    if (options.maxBytes() > 0) {
      m.gauge(
          "tally.journal.store_bytes",
          "estimated heap of the executions the journal store keeps until their retention ends",
          "",
          () -> stats().executionBytes());
      m.gauge(
          "tally.journal.store_max_bytes",
          "the bound beyond which new calls are refused (journal.maxBytes)",
          "",
          () -> stats().maxBytes());
    }
  }

  /**
   * Open, no write or fsync has failed since it was opened, and a typical new execution fits below
   * {@link JournalOptions#maxBytes()} (for readiness: a full store refuses new calls).
   */
  @Override
  public boolean isWritable() {
    return !closed && writer.isWritable() && table.hasRoom();
  }

  /**
   * The executions {@link #open} settled because the previous process left them dispatched, so that
   * an audit trail opened after the store can record those transitions too. Empty after a clean
   * stop.
   */
  public List<Settled> settledAtOpen() {
    return settledAtOpen;
  }

  /**
   * Makes {@code o} hear of every later change: {@link CommitObserver#applied} before its record is
   * queued, {@link CommitObserver#collect} for each group commit, before its frame is written. Call
   * it once, right after {@link #open} and before the store is shared; the changes {@link #open}
   * made itself are in {@link #settledAtOpen()}.
   */
  public void observe(CommitObserver o) {
    Objects.requireNonNull(o, "observer");
    this.observer = o;
    writer.observe(o);
  }

  /** Counters since the store was opened. */
  public JournalStats stats() {
    return new JournalStats(
        writer.fsyncs(),
        writer.recordsWritten(),
        writer.bytesWritten(),
        writer.riderBytes(),
        compactor.compactions(),
        table.size(),
        table.pinnedWeight(),
        options.maxBytes());
  }

  /**
   * Whether a compaction is running, asked on the writer thread after everything queued before the
   * call is durable (tests): the compaction decision after each of those groups has been made by
   * then, so a test can tell "not started" from "not started yet" without sleeping.
   */
  CompletableFuture<Boolean> compacting() {
    return writer.control(() -> compactor.running() != null);
  }

  /**
   * Compacts everything written before the call and completes when done (tests): a compaction
   * already running may have rolled before the latest records, so it is awaited and then one more
   * is started (or joined if one started after it, which rolled after those records too).
   */
  CompletableFuture<Void> compactNow() {
    return writer
        .control(
            () -> {
              CompletableFuture<Void> earlier = compactor.running();
              if (earlier == null) {
                return compactor.start(writer);
              }
              return earlier
                  .handle((v, e) -> (Void) null)
                  .thenCompose(v -> writer.control(() -> compactor.start(writer)))
                  .thenCompose(next -> next);
            })
        .thenCompose(done -> done);
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
