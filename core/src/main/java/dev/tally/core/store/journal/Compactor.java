package dev.tally.core.store.journal;

import dev.tally.core.store.StoreException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Keeps the journal proportional to its live records, in the background.
 *
 * <p>Implementation note: the writer closes its segment {@code N} and continues in {@code N+1} (a
 * roll: one file creation, so writers wait only that long). A compactor thread then writes the live
 * records to {@code snapshot-N.snap.tmp}, forces it, renames it to {@code snapshot-N.snap}, forces
 * the directory, and only then deletes the files it replaces and forces the directory again. A
 * crash at any step leaves either the old files (a {@code .tmp} file is deleted at start) or a
 * complete snapshot that recovery prefers over the segments it covers, which are then deleted;
 * nothing is lost.
 *
 * <p>The live records come from the writer's {@link LogState}, not from re-reading the files: it
 * holds, per id, the newest record the writer made durable (updated only after the fsync), so the
 * snapshot holds only what is on disk. Iterating it while the writer goes on may pick up, for some
 * ids, a record from segment {@code N+1} or later instead of the one from {@code N} or earlier, or
 * miss an id purged there: both are harmless, because those later segments stay and recovery
 * replays them over the snapshot (highest version wins, a purge removes the id). Each compaction
 * writes the live records once and reads nothing, so its cost is proportional to the live set, and
 * the garbage-ratio trigger ({@code compactRatio}) keeps it amortized per written record.
 */
final class Compactor implements GroupWriter.AfterGroup {
  private static final System.Logger LOG = System.getLogger(JournalExecutionStore.class.getName());
  private static final int SNAPSHOT_FRAME_BYTES = 1 << 20;

  /** The steps of one compaction, in order, for crash tests. */
  enum Step {
    SNAPSHOT_PARTLY_WRITTEN,
    SNAPSHOT_WRITTEN,
    SNAPSHOT_RENAMED,
    SNAPSHOT_DURABLE,
    OLD_FILES_PARTLY_DELETED,
    OLD_FILES_DELETED
  }

  /**
   * Called as each step is reached. A hook that throws an unchecked exception (other than {@link
   * StoreException}) abandons the compaction on the spot, without cleaning up, as a crash would.
   */
  @FunctionalInterface
  interface Hooks {
    Hooks NONE = step -> {};

    void reached(Step step);
  }

  private final JournalDir dir;
  private final long minBytes;
  private final double ratio;
  private final Hooks hooks;
  private final LogState live;
  private final ExecutorService executor;
  private final AtomicReference<CompletableFuture<Void>> running = new AtomicReference<>();
  private volatile long snapshotSeq;
  private volatile long compactions;
  private volatile boolean stopping;
  // Writer thread only: after a failure, wait until the journal grew by minBytes again.
  private long retryAbove;

  Compactor(JournalDir dir, JournalOptions options, long snapshotSeq, LogState live, Hooks hooks) {
    this.live = live;
    this.dir = dir;
    this.minBytes = options.compactMinBytes();
    this.ratio = options.compactRatio();
    this.hooks = hooks;
    this.snapshotSeq = snapshotSeq;
    this.executor = DaemonThreads.single("tally-journal-compactor");
  }

  @Override
  public void afterGroup(GroupWriter writer) {
    long log = writer.logBytes() - writer.ridersInLog();
    if (running.get() == null
        && log > minBytes
        && log > ratio * writer.liveBytes()
        && log > retryAbove) {
      start(writer);
    }
  }

  /** The compaction running now, or null. */
  CompletableFuture<Void> running() {
    return running.get();
  }

  /**
   * Starts a compaction unless one is running; returns the running one. Writer thread only (the
   * roll must not race a group).
   */
  CompletableFuture<Void> start(GroupWriter writer) {
    CompletableFuture<Void> current = running.get();
    if (current != null) {
      return current;
    }
    if (!writer.isWritable()) {
      return CompletableFuture.failedFuture(
          new StoreException(StoreException.Code.UNAVAILABLE, "the journal cannot write"));
    }
    long upTo;
    long riders = writer.ridersInLog(); // all in the segments up to the one rolled now
    try {
      upTo = writer.roll();
    } catch (IOException e) {
      writer.failedOnWriter(e);
      return CompletableFuture.failedFuture(e);
    }
    CompletableFuture<Void> done = new CompletableFuture<>();
    running.set(done);
    try {
      executor.execute(() -> run(writer, upTo, riders, done));
    } catch (RejectedExecutionException e) {
      running.set(null);
      done.completeExceptionally(e);
    }
    return done;
  }

  private void run(GroupWriter writer, long upTo, long riders, CompletableFuture<Void> done) {
    try {
      writer.closedFilesChanged(compact(writer, upTo));
      writer.ridersReplaced(riders);
      compactions++;
      running.set(null);
      done.complete(null);
    } catch (IOException | StoreException e) {
      JournalDir.closeQuietly(() -> Files.deleteIfExists(JournalDir.tmp(dir.snapshot(upTo))));
      LOG.log(
          stopping ? System.Logger.Level.DEBUG : System.Logger.Level.WARNING,
          "journal compaction of "
              + dir.path()
              + " up to segment "
              + upTo
              + " failed; the journal keeps its files and compaction is retried once it grows"
              + " further: "
              + e);
      writer.control(() -> retryAbove = writer.logBytes() + minBytes);
      running.set(null);
      done.completeExceptionally(e);
    } catch (RuntimeException e) {
      // A crash hook (tests): leave everything as it is.
      running.set(null);
      done.completeExceptionally(e);
    }
  }

  /** Compacts everything up to segment {@code upTo}; returns the change in closed-file bytes. */
  private long compact(GroupWriter writer, long upTo) throws IOException {
    long previous = snapshotSeq;
    List<Path> replaced = new ArrayList<>();
    if (previous > 0) {
      replaced.add(dir.snapshot(previous));
    }
    for (long seq = previous + 1; seq <= upTo; seq++) {
      replaced.add(dir.segment(seq));
    }
    long replacedBytes = 0;
    for (Path p : replaced) {
      replacedBytes += Files.size(p);
    }

    Path target = dir.snapshot(upTo);
    Path tmp = JournalDir.tmp(target);
    long written = writeSnapshot(tmp, upTo, live);
    hooks.reached(Step.SNAPSHOT_WRITTEN);
    // The segments replaced hold riders (audit entries) whose own files were written but not
    // forced: force them before the snapshot makes those segments unreachable.
    writer.forceRiders();
    JournalDir.move(tmp, target);
    snapshotSeq = upTo;
    hooks.reached(Step.SNAPSHOT_RENAMED);
    dir.sync();
    hooks.reached(Step.SNAPSHOT_DURABLE);
    boolean first = true;
    for (Path p : replaced) {
      Files.deleteIfExists(p);
      if (first) {
        hooks.reached(Step.OLD_FILES_PARTLY_DELETED);
        first = false;
      }
    }
    dir.sync();
    hooks.reached(Step.OLD_FILES_DELETED);
    return written - replacedBytes;
  }

  private long writeSnapshot(Path tmp, long seq, LogState state) throws IOException {
    try (FileChannel ch = dir.createNew(tmp)) {
      long pos = 0;
      ByteBuffer header = JournalFormat.header(JournalFormat.KIND_SNAPSHOT, seq);
      JournalDir.writeFully(ch, header, pos);
      pos += JournalFormat.HEADER_BYTES;
      hooks.reached(Step.SNAPSHOT_PARTLY_WRITTEN);
      FrameBuffer frame = new FrameBuffer(64 * 1024);
      frame.begin();
      for (LogState.Entry e : state.entries()) {
        RecordCodec.encodePut(e.doc(), e.result(), frame);
        if (Thread.currentThread().isInterrupted()) {
          throw new java.io.InterruptedIOException("compaction stopped");
        }
        if (frame.payloadSize() >= SNAPSHOT_FRAME_BYTES) {
          pos += flush(ch, frame, pos);
        }
      }
      if (frame.payloadSize() > 0) {
        pos += flush(ch, frame, pos);
      }
      ch.force(true);
      return pos;
    }
  }

  private static int flush(FileChannel ch, FrameBuffer frame, long pos) throws IOException {
    frame.finish();
    int n = frame.size();
    JournalDir.writeFully(ch, ByteBuffer.wrap(frame.array(), 0, n), pos);
    frame.begin();
    return n;
  }

  long compactions() {
    return compactions;
  }

  long snapshotSeq() {
    return snapshotSeq;
  }

  /** Stops the compactor thread, interrupting a compaction in progress, and waits for it. */
  void stop() {
    stopping = true;
    executor.shutdownNow();
    boolean interrupted = false;
    while (true) {
      try {
        if (executor.awaitTermination(1, TimeUnit.MINUTES)) {
          break;
        }
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }
}
