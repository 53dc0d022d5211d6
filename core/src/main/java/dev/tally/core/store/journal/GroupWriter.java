package dev.tally.core.store.journal;

import dev.tally.core.store.StoreException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The journal's single writer thread: it drains a queue of records, writes all that are pending as
 * one frame, forces the file once, and only then completes their stages (group commit). Callers
 * only enqueue; they never wait for, or run, a write or an fsync.
 *
 * <p>After a failed write or fsync every stage not yet durable fails with {@link
 * StoreException.Code#UNAVAILABLE} and so does every later one: the journal stops writing until it
 * is reopened (fail closed). Stages complete on the writer thread, so dependent actions must not
 * block.
 */
final class GroupWriter {
  private static final System.Logger LOG = System.getLogger(JournalExecutionStore.class.getName());
  private static final int KEEP_BUFFER_BYTES = 1 << 20;

  /** Work for the writer: a record, or a control action run after the group it ends. */
  private record Pending(JournalEntry entry, CompletableFuture<Void> done, Runnable control) {}

  /** Called on the writer thread after each group (compaction decides whether to start). */
  interface AfterGroup {
    void afterGroup(GroupWriter writer);
  }

  private final JournalDir dir;
  private final int maxGroupRecords;
  private final int maxGroupBytes;
  private final long maxGroupDelayNanos;
  private final LinkedBlockingQueue<Pending> queue = new LinkedBlockingQueue<>();
  private final FrameBuffer frame;
  private final LogState state;
  // Writer-thread state: the records of the group being written and their encoded sizes.
  private final List<JournalEntry> groupEntries = new ArrayList<>();
  private int[] groupSizes = new int[64];
  private volatile CommitObserver observer = CommitObserver.NONE;
  // Writer thread only: encodes riders into the frame being built.
  private final RiderSink riderSink = this::encodeRider;
  private final AtomicLong closedBytes;
  private final Preallocator preallocator;
  private final Thread thread;
  private volatile AfterGroup afterGroup = w -> {};
  // Writer-thread state: failed groups and when the last one was logged (0: never).
  private static final long OBSERVER_LOG_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);
  private volatile long observerFailures;
  private volatile long lastObserverLog;

  // Writer-thread state.
  private FileChannel segment;
  private long segmentSeq;
  private long segmentSize;
  // Where the segment's file ends until the preallocator takes over on the writer thread (the
  // zeros an earlier run allocated count as allocated).
  private long segmentFileSize;
  private boolean attached;
  private boolean stopRequested;

  // Published to other threads.
  private volatile IOException failure;
  private volatile StoreException unavailable;
  private volatile boolean stopped;
  private volatile long fsyncs;
  private volatile long recordsWritten;
  private volatile long bytesWritten;
  private volatile long riderBytes;
  // Rider bytes in the journal files not yet replaced by a compaction (they are never live).
  private final AtomicLong ridersInLog;

  GroupWriter(
      JournalDir dir,
      JournalOptions options,
      FileChannel segment,
      long segmentSeq,
      long segmentSize,
      long segmentFileSize,
      long closedBytes,
      long ridersInLog,
      LogState state) {
    this.dir = dir;
    this.maxGroupRecords = options.maxGroupRecords();
    this.maxGroupBytes = options.maxGroupBytes();
    this.maxGroupDelayNanos = options.maxGroupDelay().toNanos();
    this.segment = segment;
    this.segmentSeq = segmentSeq;
    this.segmentSize = segmentSize;
    this.closedBytes = new AtomicLong(closedBytes);
    this.ridersInLog = new AtomicLong(ridersInLog);
    this.state = state;
    this.frame = new FrameBuffer(64 * 1024);
    this.preallocator = new Preallocator(options.preallocateBytes());
    this.segmentFileSize = segmentFileSize;
    this.thread = new Thread(this::run, "tally-journal-writer");
    thread.setDaemon(true);
  }

  /** Sets who hands over riders for each group (see {@link CommitObserver}). */
  void observe(CommitObserver observer) {
    this.observer = observer;
  }

  void start(AfterGroup hook) {
    this.afterGroup = hook;
    thread.start();
  }

  // ---- callers ---------------------------------------------------------------------------------

  /**
   * Enqueues a record; the stage completes once it is durable. Records of one execution must be
   * appended in the order they were applied (the store holds a per-id lock around both).
   */
  CompletableFuture<Void> append(JournalEntry entry) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    enqueue(new Pending(entry, done, null));
    return done;
  }

  /**
   * Runs {@code action} on the writer thread after everything queued before it is durable, and
   * completes with its value.
   */
  <T> CompletableFuture<T> control(Supplier<T> action) {
    CompletableFuture<T> done = new CompletableFuture<>();
    CompletableFuture<Void> closed = new CompletableFuture<>();
    closed.whenComplete((v, err) -> done.completeExceptionally(err));
    enqueue(new Pending(null, closed, () -> done.complete(action.get())));
    return done;
  }

  private void enqueue(Pending p) {
    if (stopped) {
      fail(p, closedError());
      return;
    }
    queue.add(p);
    if (stopped) {
      drain(closedError());
    }
  }

  /** Writes what is queued, then stops the writer and closes the segment; waits for it. */
  void stop() {
    if (Thread.currentThread() == thread) {
      stopRequested = true; // closed from a stage completed here: the loop ends after this group
      return;
    }
    if (!stopped && thread.isAlive()) {
      control(() -> stopRequested = true);
      join();
    }
    stopped = true;
    drain(closedError());
  }

  /** Stops at once without writing what is queued, as a crash would (tests). */
  void halt() {
    thread.interrupt();
    join();
    stopped = true;
    drain(closedError());
  }

  private void join() {
    boolean interrupted = false;
    while (thread.isAlive()) {
      try {
        thread.join();
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  boolean isWritable() {
    return failure == null && !stopped;
  }

  long fsyncs() {
    return fsyncs;
  }

  long recordsWritten() {
    return recordsWritten;
  }

  long bytesWritten() {
    return bytesWritten;
  }

  /** Bytes of riders (records included) written into frames. */
  long riderBytes() {
    return riderBytes;
  }

  // ---- writer thread ---------------------------------------------------------------------------

  private void run() {
    List<Pending> group = new ArrayList<>();
    if (!attached) {
      attached = true;
      preallocator.attach(segment, segmentSize, Math.max(segmentSize, segmentFileSize));
    }
    try {
      while (!stopRequested) {
        group.clear();
        writeGroup(queue.take(), group);
      }
    } catch (InterruptedException e) {
      for (Pending p : group) {
        fail(p, closedError());
      }
    } finally {
      stopped = true;
      drain(closedError());
      preallocator.close();
      JournalDir.closeQuietly(segment);
    }
  }

  private void writeGroup(Pending first, List<Pending> group) throws InterruptedException {
    frame.begin();
    groupEntries.clear();
    int records = 0;
    long deadline = maxGroupDelayNanos > 0 ? System.nanoTime() + maxGroupDelayNanos : 0;
    Pending p = first;
    while (true) {
      group.add(p);
      if (p.entry() != null) {
        records++;
        encode(p.entry());
      }
      if (p.control() != null
          || records >= maxGroupRecords
          || frame.payloadSize() >= maxGroupBytes) {
        break;
      }
      p = queue.poll();
      if (p == null && deadline != 0) {
        long left = deadline - System.nanoTime();
        p = left > 0 ? queue.poll(left, TimeUnit.NANOSECONDS) : null;
      }
      if (p == null) {
        break;
      }
    }
    RuntimeException observerError = null;
    if (records > 0 && failure == null) {
      // What the observer kept beside the journal (the audit entries of these changes) rides in
      // this frame and shares its one fsync.
      observerError = collectRiders();
      write(records);
      if (failure == null) {
        for (int i = 0; i < groupEntries.size(); i++) {
          state.accept(groupEntries.get(i), groupSizes[i]);
        }
      }
    }
    StoreException error = unavailable;
    for (Pending q : group) {
      if (error != null && q.control() == null) {
        fail(q, error);
      } else if (observerError != null && q.control() == null) {
        q.done().completeExceptionally(observerError);
      } else if (q.control() != null) {
        runControl(q);
      } else if (q.done() != null) {
        q.done().complete(null);
      }
    }
    frame.shrinkTo(KEEP_BUFFER_BYTES);
    if (failure == null && !stopRequested) {
      try {
        afterGroup.afterGroup(this);
      } catch (RuntimeException e) {
        LOG.log(System.Logger.Level.WARNING, "journal: after-group action failed: " + e);
      }
    }
  }

  private void encode(JournalEntry entry) {
    if (failure != null) {
      return;
    }
    int mark = frame.size();
    try {
      RecordCodec.encode(entry, frame);
    } catch (RuntimeException e) {
      frame.truncate(mark);
      failed(new IOException("cannot encode a record of " + entry.id(), e));
      return;
    }
    int n = groupEntries.size();
    if (n == groupSizes.length) {
      groupSizes = java.util.Arrays.copyOf(groupSizes, n * 2);
    }
    groupSizes[n] = frame.size() - mark;
    if (entry instanceof JournalEntry.Put put && put.doc() == null) {
      // The durable state keeps the document, not the record: take it from the frame.
      entry = put.withDoc(RecordCodec.docOf(frame.array(), mark));
    }
    groupEntries.add(entry);
  }

  /**
   * Encodes the observer's riders into the frame being built; returns what the observer threw, if
   * anything (the riders it handed over before stay: their bytes are in their files already).
   */
  private RuntimeException collectRiders() {
    CommitObserver o = observer;
    if (o == CommitObserver.NONE) {
      return null;
    }
    int before = frame.size();
    try {
      o.collect(riderSink);
      return null;
    } catch (RuntimeException e) {
      observerFailures++;
      // Every group fails the same way once the audit journal cannot write (a full disk): one
      // line per OBSERVER_LOG_INTERVAL, not hundreds a second.
      long now = System.nanoTime();
      if (lastObserverLog == 0 || now - lastObserverLog >= OBSERVER_LOG_INTERVAL_NANOS) {
        LOG.log(
            System.Logger.Level.WARNING,
            "journal: the commit observer failed ("
                + observerFailures
                + " group(s) so far); the group's stages fail with its error: "
                + e);
        lastObserverLog = now;
      }
      return e;
    } finally {
      int added = frame.size() - before;
      riderBytes += added;
      ridersInLog.addAndGet(added);
    }
  }

  private void encodeRider(byte[] tag, long offset, byte[] bytes, int from, int length) {
    RecordCodec.encodeRider(tag, offset, bytes, from, length, frame);
  }

  /**
   * Forces what the observer wrote beside the journal, before a compaction replaces files that hold
   * its riders; any thread.
   */
  void forceRiders() throws IOException {
    try {
      observer.force();
    } catch (RuntimeException e) {
      throw new IOException("the files beside the journal could not be forced: " + e, e);
    }
  }

  private void write(int records) {
    frame.finish();
    long end = segmentSize + frame.size();
    preallocator.beforeWrite(end);
    try {
      JournalDir.writeFully(segment, ByteBuffer.wrap(frame.array(), 0, frame.size()), segmentSize);
      // fdatasync: it still commits a grown file size (needed to read the data back), not mtime.
      segment.force(false);
    } catch (IOException e) {
      failed(e);
      return;
    }
    preallocator.afterWrite(end);
    segmentSize = end;
    fsyncs++;
    recordsWritten += records;
    bytesWritten += frame.size();
  }

  private void runControl(Pending q) {
    try {
      q.control().run();
    } catch (RuntimeException e) {
      q.done().completeExceptionally(e);
    }
  }

  private void failed(IOException e) {
    if (failure != null) {
      return;
    }
    failure = e;
    unavailable =
        new StoreException(
            StoreException.Code.UNAVAILABLE,
            "the journal in "
                + dir.path()
                + " cannot write ("
                + e
                + "); it stays read-only until"
                + " reopened",
            e);
    LOG.log(
        System.Logger.Level.ERROR,
        "journal write to "
            + dir.segment(segmentSeq)
            + " at byte "
            + segmentSize
            + " failed; the store refuses writes until it is reopened: "
            + e);
  }

  /** Marks the store unwritable from outside a group (a failed roll); writer thread only. */
  void failedOnWriter(IOException e) {
    failed(e);
  }

  /** The bytes of the journal files, including the segment being written; writer thread only. */
  long logBytes() {
    return closedBytes.get() + segmentSize;
  }

  /** The estimated bytes of the live records once compacted; writer thread only. */
  long liveBytes() {
    return state.liveBytes();
  }

  /**
   * The bytes of riders in the journal files (see {@link #logBytes}): they are never live, so
   * compaction leaves them out of its trigger (else they would double how often it rewrites the
   * live records); they go with the segments the next compaction replaces.
   */
  long ridersInLog() {
    return ridersInLog.get();
  }

  /** A compaction replaced files holding {@code bytes} of riders. */
  void ridersReplaced(long bytes) {
    ridersInLog.addAndGet(-bytes);
  }

  /** Adjusts the size of the closed files after a compaction replaced some. */
  void closedFilesChanged(long delta) {
    closedBytes.addAndGet(delta);
  }

  /**
   * Closes the current segment and continues in a new one; returns the sequence of the closed
   * segment, whose records are all durable. Writer thread only.
   */
  long roll() throws IOException {
    long closed = segmentSeq;
    FileChannel next = dir.create(dir.segment(closed + 1), JournalFormat.KIND_SEGMENT, closed + 1);
    preallocator.awaitPending(); // it may still be writing zeros into the segment closed here
    // A closed segment keeps no preallocated zeros: compaction subtracts the file sizes of what
    // it replaces, so closedBytes must have added the same sizes (it added the written size while
    // compaction subtracted up to preallocateBytes more per segment, so the log looked ever
    // smaller and background compaction stopped after the first one).
    long closedSize = segmentSize;
    try {
      segment.truncate(segmentSize);
    } catch (IOException e) {
      closedSize = sizeOr(segment, segmentSize);
    }
    JournalDir.closeQuietly(segment);
    closedBytes.addAndGet(closedSize);
    segment = next;
    segmentSeq = closed + 1;
    segmentSize = JournalFormat.HEADER_BYTES;
    segmentFileSize = segmentSize;
    if (attached) {
      preallocator.attach(next, segmentSize, segmentFileSize);
    }
    return closed;
  }

  private static long sizeOr(FileChannel ch, long fallback) {
    try {
      return ch.size();
    } catch (IOException e) {
      return fallback;
    }
  }

  private void drain(StoreException error) {
    Pending p;
    while ((p = queue.poll()) != null) {
      fail(p, error);
    }
  }

  private static void fail(Pending p, StoreException error) {
    if (p.done() != null) {
      p.done().completeExceptionally(error);
    }
  }

  private StoreException closedError() {
    return new StoreException(
        StoreException.Code.CLOSED, "the journal store in " + dir.path() + " is closed");
  }
}
