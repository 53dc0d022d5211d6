package dev.tally.core.audit;

import dev.tally.core.store.journal.RiderSink;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.DigestException;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.Base64;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One append-only, hash-chained journal file with signed checkpoints (format: {@link EntryCodec}).
 * Appends encode and buffer under a short lock and do no I/O; {@link #flush()} writes everything
 * buffered and fsyncs once (group commit), while later appends keep buffering. {@link #collect}
 * writes without the fsync and hands the bytes to the execution journal, whose fsync makes them
 * durable (see {@link AuditRepair} for the way back after a power loss).
 *
 * <p>Implementation note: two locks. {@code lock} guards the chain state and the buffer; {@code
 * writeLock} serializes writers so buffers reach the file in order. A flusher takes {@code
 * writeLock} first and {@code lock} only to swap the buffer; an append never waits for a disk. An
 * appender that finds more than {@link AuditOptions#maxPendingBytes()} buffered (nothing drained
 * them: retries answered from stored results make entries without transitions, so without group
 * commits) hands the flush to the journal's relief executor, so that an event loop never writes or
 * forces; only beyond {@value #HARD_LIMIT_FACTOR} times that bound (the relief cannot keep up) does
 * the appender flush itself, which bounds the memory held. An entry is written in place: its
 * canonical bytes straight into the pending buffer, hashed there with the chain's digest, then
 * completed to its line ({@link EntryCodec#completeLine}).
 */
final class Journal {
  private static final int INITIAL_BUFFER = 8192;

  /** Buffered bytes, in units of {@code maxPendingBytes}, at which an appender flushes itself. */
  static final int HARD_LIMIT_FACTOR = 4;

  /** Room for a checkpoint's members (eight, and the signature). */
  private static final int CHECKPOINT_MEMBERS = 9;

  private final Path file;
  private final String name;
  private final FileChannel ch;
  private final SigningKey key;
  private final EntryCodec codec;
  private final AuditOptions options;
  // Flushes handed off by appenders (null: the appender flushes); one queued at a time.
  private final Executor relief;
  private final AtomicBoolean reliefQueued = new AtomicBoolean();

  private final Object lock = new Object();
  private final ReentrantLock writeLock = new ReentrantLock();

  // Guarded by lock.
  private long seq;
  private byte[] prev; // the raw hash of entry seq (all zeros before the first entry)
  private byte[] next = new byte[Hashes.SHA256_BYTES]; // where the next entry's hash is computed
  private final MessageDigest sha256 = Hashes.sha256();
  private int unsigned;
  private Instant firstUnsignedAt;
  private LineBuffer pending = new LineBuffer(INITIAL_BUFFER);
  private boolean closed;

  // Guarded by writeLock: the buffer flushed last, emptied, to become the next pending buffer.
  private LineBuffer spare = new LineBuffer(INITIAL_BUFFER);
  // Guarded by writeLock: where the next bytes go (the file's size once all writes returned).
  private long end;

  // Written under writeLock.
  private volatile long durableSeq;
  private volatile IOException failure;

  private Journal(
      Path file,
      FileChannel ch,
      SigningKey key,
      EntryCodec codec,
      AuditOptions options,
      Executor relief,
      JournalRecovery.State state) {
    this.file = file;
    this.relief = relief;
    this.name = AuditFiles.journalName(file.getFileName().toString());
    this.ch = ch;
    this.key = key;
    this.codec = codec;
    this.options = options;
    this.seq = state.lastSeq();
    this.prev = Hashes.unhex(state.lastHash());
    this.durableSeq = state.lastSeq();
    if (!state.signed()) {
      unsigned = 1;
      firstUnsignedAt = options.clock().instant();
    }
  }

  /**
   * Opens (creating, or recovering) {@code file}. Entries left unsigned by a crash are signed by a
   * checkpoint at once, after their chain checked out.
   */
  static Journal open(Path file, SigningKey key, AuditOptions options) {
    return open(file, key, options, null);
  }

  /**
   * {@link #open(Path, SigningKey, AuditOptions)}, with {@code relief} running the flushes that
   * appenders hand off (null: appenders flush themselves).
   */
  static Journal open(Path file, SigningKey key, AuditOptions options, Executor relief) {
    FileChannel ch;
    try {
      ch = openChannel(file);
    } catch (IOException e) {
      throw new AuditException(AuditException.Code.IO, file + ": cannot open: " + e, e);
    }
    try {
      EntryCodec codec = new EntryCodec(options.canonicalizer());
      JournalRecovery.State state =
          JournalRecovery.recover(
              ch,
              file,
              AuditFiles.journalName(file.getFileName().toString()),
              codec,
              key.publicKey(),
              options.clock());
      Journal j = new Journal(file, ch, key, codec, options, relief, state);
      j.end = ch.size();
      if (!state.signed()) {
        synchronized (j.lock) {
          j.checkpointLocked(options.clock().instant());
        }
        j.flush();
      }
      return j;
    } catch (IOException e) {
      closeQuietly(ch);
      throw new AuditException(AuditException.Code.IO, file + ": cannot read: " + e, e);
    } catch (RuntimeException e) {
      closeQuietly(ch);
      throw e;
    }
  }

  static FileChannel openChannel(Path file) throws IOException {
    return FileOps.openOwnerOnly(
        file, Set.of(StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE));
  }

  /** Buffers one entry (the body without {@code v}, {@code seq}, {@code prev}, {@code hash}). */
  void append(FlatEntry body) {
    int buffered;
    synchronized (lock) {
      ensureWritable();
      Instant now = options.clock().instant();
      appendLocked(body);
      unsigned++;
      if (firstUnsignedAt == null) {
        firstUnsignedAt = now;
      }
      if (checkpointDue(now)) {
        checkpointLocked(now);
      }
      buffered = pending.size();
    }
    if (buffered >= options.maxPendingBytes()) {
      relieve(buffered);
    }
  }

  /** Too much is buffered: a flush, off this thread unless the relief is missing or behind. */
  private void relieve(int buffered) {
    if (relief == null || buffered >= (long) HARD_LIMIT_FACTOR * options.maxPendingBytes()) {
      flush();
      return;
    }
    if (!reliefQueued.compareAndSet(false, true)) {
      return;
    }
    try {
      relief.execute(this::reliefFlush);
    } catch (RejectedExecutionException e) {
      reliefQueued.set(false);
      flush(); // shutting down
    }
  }

  private void reliefFlush() {
    reliefQueued.set(false);
    try {
      flush();
    } catch (AuditException e) {
      // Closed meanwhile, or the write failed: failed() recorded it and the next append reports it.
    }
  }

  /** Signs a checkpoint if one is due by count or age. */
  void checkpointIfDue() {
    synchronized (lock) {
      ensureWritable();
      Instant now = options.clock().instant();
      if (checkpointDue(now)) {
        checkpointLocked(now);
      }
    }
  }

  private boolean checkpointDue(Instant now) {
    return unsigned > 0
        && (unsigned >= options.checkpointEvery()
            || !now.isBefore(firstUnsignedAt.plus(options.checkpointInterval())));
  }

  private void appendLocked(FlatEntry body) {
    addChainMembers(body);
    writeLocked(body);
  }

  private void addChainMembers(FlatEntry entry) {
    entry.put(EntryCodec.V, EntryCodec.VERSION);
    entry.put(EntryCodec.SEQ, seq + 1);
    entry.putHash(EntryCodec.PREV, prev);
  }

  /** Writes the line of {@code entry} (which has its chain members) and moves the chain on. */
  private void writeLocked(FlatEntry entry) {
    int start = pending.size();
    try {
      if (!entry.writeCanonical(pending)) {
        pending.put(codec.canonicalize(entry.toTree()));
      }
      sha256.update(prev);
      sha256.update(pending.array(), start, pending.size() - start);
      sha256.digest(next, 0, next.length);
      EntryCodec.completeLine(pending, start, next);
    } catch (DigestException e) {
      pending.size(start);
      throw new IllegalStateException("SHA-256 refused a 32-byte output buffer", e);
    } catch (RuntimeException | Error e) {
      pending.size(start);
      sha256.reset();
      throw e;
    }
    byte[] t = prev;
    prev = next;
    next = t;
    seq++;
  }

  private void checkpointLocked(Instant now) {
    FlatEntry cp = new FlatEntry(CHECKPOINT_MEMBERS);
    cp.put(EntryCodec.AT, now.toString());
    cp.putHash(EntryCodec.COVERS_HASH, prev);
    cp.put(EntryCodec.COVERS_SEQ, seq);
    cp.put(EntryCodec.KEY, key.publicKey().keyId());
    cp.put(EntryCodec.TYPE, EntryCodec.CHECKPOINT);
    addChainMembers(cp);
    byte[] signed = EntryCodec.checkpointMessage(name, canonical(cp));
    cp.put(EntryCodec.SIG, Base64.getEncoder().encodeToString(key.sign(signed)));
    writeLocked(cp);
    unsigned = 0;
    firstUnsignedAt = null;
  }

  private byte[] canonical(FlatEntry entry) {
    LineBuffer out = new LineBuffer(512);
    return entry.writeCanonical(out) ? out.toByteArray(0) : codec.canonicalize(entry.toTree());
  }

  /** Writes and fsyncs every entry buffered before this call; one fsync covers them all. */
  void flush() {
    LineBuffer chunk = null;
    writeLock.lock();
    try {
      chunk = takeLocked();
      if (chunk == null) {
        return;
      }
      try {
        ch.force(false);
      } catch (IOException e) {
        throw failed(e);
      }
    } finally {
      releaseLocked(chunk);
      writeLock.unlock();
    }
  }

  /**
   * Writes every entry buffered before this call without forcing it, and hands the bytes written to
   * {@code out} as a rider tagged {@code tag}: the caller makes them durable elsewhere (the
   * execution journal's frame) before it reports anything they record. Nothing when all is written.
   */
  void collect(byte[] tag, RiderSink out) {
    LineBuffer chunk = null;
    writeLock.lock();
    try {
      long at = end;
      chunk = takeLocked();
      if (chunk != null) {
        out.accept(tag, at, chunk.array(), 0, chunk.size());
      }
    } finally {
      releaseLocked(chunk);
      writeLock.unlock();
    }
  }

  /** Forces everything written so far ({@link #collect} does not). */
  void force() {
    ensureNotFailed();
    try {
      ch.force(false);
    } catch (IOException e) {
      throw failed(e);
    }
  }

  /**
   * Under {@code writeLock}: takes the entries buffered so far and writes them at the end of the
   * file (not forced); returns the buffer written, or null if there was nothing to write.
   */
  private LineBuffer takeLocked() {
    LineBuffer chunk;
    long upTo;
    synchronized (lock) {
      upTo = seq;
      if (durableSeq >= upTo) {
        return null;
      }
      ensureNotFailed();
      chunk = pending;
      pending = spare != null ? spare : new LineBuffer(INITIAL_BUFFER);
      spare = null;
    }
    try {
      ByteBuffer buf = chunk.asByteBuffer();
      long at = end;
      while (buf.hasRemaining()) {
        at += ch.write(buf, at);
      }
      end = at;
    } catch (IOException e) {
      throw failed(e);
    }
    durableSeq = upTo;
    return chunk;
  }

  /** Under {@code writeLock}: keeps a written buffer, emptied, as the next pending one. */
  private void releaseLocked(LineBuffer chunk) {
    if (chunk != null) {
      chunk.clear();
      spare = chunk;
    }
  }

  private AuditException failed(IOException e) {
    if (failure == null) {
      failure = e;
    }
    return new AuditException(
        AuditException.Code.IO, file + ": write failed; no further entries: " + e, e);
  }

  /** Signs the entries not yet covered, flushes, and closes the file. */
  void close() {
    synchronized (lock) {
      if (closed) {
        return;
      }
      if (failure == null && unsigned > 0) {
        checkpointLocked(options.clock().instant());
      }
      closed = true;
    }
    try {
      if (failure == null) {
        flush();
        force(); // also what collect wrote
      }
    } finally {
      closeQuietly(ch);
    }
  }

  /** Why this journal takes no more entries (a write failed), or null. Names the file only. */
  String problem() {
    IOException f = failure;
    return f == null ? null : file.getFileName() + ": " + f.getMessage();
  }

  private void ensureWritable() {
    if (closed) {
      throw new AuditException(AuditException.Code.CLOSED, file + ": the journal is closed");
    }
    ensureNotFailed();
  }

  private void ensureNotFailed() {
    IOException f = failure;
    if (f != null) {
      throw new AuditException(
          AuditException.Code.IO, file + ": an earlier write failed; no further entries: " + f, f);
    }
  }

  private static void closeQuietly(FileChannel ch) {
    try {
      ch.close();
    } catch (IOException e) {
      // Nothing left to do: every entry that mattered was flushed or reported.
    }
  }
}
