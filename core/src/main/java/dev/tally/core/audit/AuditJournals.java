package dev.tally.core.audit;

import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.store.journal.RiderSink;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The audit journals of one directory (ARCHITECTURE.md §9): {@value AuditFiles#ACTIVITY} (one entry
 * per execution transition or answered retry) and {@value AuditFiles#SESSIONS} (runs and MCP
 * sessions seen), both hash-chained JSON lines with Ed25519-signed checkpoints, plus the signing
 * key and its public half. One writer per directory, enforced by a lock on {@value
 * AuditFiles#LOCK}.
 *
 * <p>Entries hold strings without control characters and integers only, so that any RFC 8785
 * implementation reproduces their canonical bytes. The format is described in {@code docs/audit.md}
 * and {@link EntryCodec}; {@link AuditVerifier} checks it offline, {@link AuditTimeline} reads it.
 *
 * <p>On first start the signing key is generated ({@value AuditFiles#SIGNING_KEY}, mode 0600) and
 * the public key written ({@value AuditFiles#PUBLIC_KEY}). A directory whose journals exist but
 * whose signing key is missing is refused, rather than continued under a new key.
 */
public final class AuditJournals implements AuditSink, AutoCloseable {
  private static final int MAX_ORIGINS = 4096;
  private final Path dir;
  private final AuditOptions options;
  private final FileChannel lockChannel;
  private final SigningKey key;
  private final Journal activity;
  private final Journal sessions;
  private final SessionTracker tracker;
  private final Relief relief;
  private final byte[] activityTag;
  private final byte[] sessionsTag;
  // Sessions of executions about to be created (see attribute); the oldest are forgotten first,
  // so a claim that never happened (a lost race, a store failure) costs a bounded slot.
  private final Map<ExecutionId, SessionRef> origins =
      new LinkedHashMap<>() {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<ExecutionId, SessionRef> eldest) {
          return size() > MAX_ORIGINS;
        }
      };

  private AuditJournals(
      Path dir,
      AuditOptions options,
      FileChannel lockChannel,
      SigningKey key,
      Journal activity,
      Journal sessions,
      Relief relief) {
    this.dir = dir;
    this.relief = relief;
    this.options = options;
    this.lockChannel = lockChannel;
    this.key = key;
    this.activity = activity;
    this.sessions = sessions;
    this.tracker = new SessionTracker(options.sessionUpdateInterval(), options.sessionCacheSize());
    this.activityTag = AuditRepair.tag(AuditFiles.ACTIVITY, key.publicKey());
    this.sessionsTag = AuditRepair.tag(AuditFiles.SESSIONS, key.publicKey());
  }

  /**
   * Opens the journals in {@code dir} for writing, creating the directory, key and files as needed
   * and recovering from a crash (see {@link JournalRecovery}). Throws {@link AuditException}:
   * {@code LOCKED} if another writer has the directory, {@code KEY} or {@code CORRUPT} if it cannot
   * be continued safely, {@code IO} otherwise.
   */
  public static AuditJournals open(Path dir, AuditOptions options) {
    return open(dir, options, new Relief());
  }

  /** {@link #open(Path, AuditOptions)} with the given relief for appenders (tests). */
  static AuditJournals open(Path dir, AuditOptions options, Relief relief) {
    Objects.requireNonNull(dir, "dir");
    Objects.requireNonNull(options, "options");
    FileChannel lockChannel = null;
    Journal activity = null;
    try {
      FileOps.createDirectories(dir);
      lockChannel =
          FileOps.openOwnerOnly(
              dir.resolve(AuditFiles.LOCK),
              Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE));
      lock(dir, lockChannel);
      SigningKey key = signingKey(dir);
      activity = Journal.open(dir.resolve(AuditFiles.ACTIVITY), key, options, relief);
      Journal sessions = Journal.open(dir.resolve(AuditFiles.SESSIONS), key, options, relief);
      FileOps.fsyncDirectory(dir);
      return new AuditJournals(dir, options, lockChannel, key, activity, sessions, relief);
    } catch (IOException e) {
      relief.close();
      release(lockChannel, activity);
      throw new AuditException(AuditException.Code.IO, dir + ": cannot open: " + e, e);
    } catch (RuntimeException e) {
      relief.close();
      release(lockChannel, activity);
      throw e;
    }
  }

  /** Locks {@code ch} until it is closed; refuses if another writer holds it. */
  private static void lock(Path dir, FileChannel ch) throws IOException {
    FileLock l;
    try {
      l = ch.tryLock();
    } catch (OverlappingFileLockException e) {
      l = null;
    }
    if (l == null) {
      throw new AuditException(
          AuditException.Code.LOCKED,
          dir
              + ": another writer holds "
              + AuditFiles.LOCK
              + " (only one process may append to an audit directory)");
    }
  }

  private static SigningKey signingKey(Path dir) throws IOException {
    Path keyFile = dir.resolve(AuditFiles.SIGNING_KEY);
    Path publicFile = dir.resolve(AuditFiles.PUBLIC_KEY);
    SigningKey key;
    if (Files.exists(keyFile)) {
      key = SigningKey.load(keyFile);
    } else if (nonEmpty(dir.resolve(AuditFiles.ACTIVITY))
        || nonEmpty(dir.resolve(AuditFiles.SESSIONS))) {
      throw new AuditException(
          AuditException.Code.KEY,
          keyFile
              + ": missing, but the journals in "
              + dir
              + " exist; restore the key or move the journals aside (a new key could not"
              + " continue their signed chain)");
    } else {
      key = SigningKey.create(keyFile);
    }
    if (Files.exists(publicFile)) {
      if (!AuditPublicKey.read(publicFile).equals(key.publicKey())) {
        throw new AuditException(
            AuditException.Code.KEY,
            publicFile + ": does not match " + AuditFiles.SIGNING_KEY + " (key " + key + ")");
      }
    } else {
      FileOps.createAtomically(
          publicFile,
          key.publicKey().toText().getBytes(StandardCharsets.UTF_8),
          FileOps.WORLD_READABLE);
    }
    return key;
  }

  private static boolean nonEmpty(Path file) throws IOException {
    return Files.exists(file) && Files.size(file) > 0;
  }

  @Override
  public void attribute(ExecutionId id, SessionRef session) {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(session, "session");
    synchronized (origins) {
      origins.put(id, session);
    }
  }

  @Override
  public void transition(Execution before, Execution after, SessionRef session) {
    Objects.requireNonNull(after, "after");
    if (before == null && session == null) {
      synchronized (origins) {
        session = origins.remove(after.id());
      }
    }
    if (ActivityEntries.isRecorded(before, after)) {
      activity.append(
          ActivityEntries.transition(before, after, options.target(), session, options.clock()));
    }
  }

  @Override
  public void retry(Execution execution, RetryOutcome outcome, SessionRef session, Instant at) {
    Objects.requireNonNull(execution, "execution");
    Objects.requireNonNull(outcome, "outcome");
    Objects.requireNonNull(at, "at");
    activity.append(ActivityEntries.retry(execution, outcome, options.target(), session, at));
  }

  @Override
  public void control(String event, String actor, String position, Instant at) {
    Objects.requireNonNull(event, "event");
    Objects.requireNonNull(at, "at");
    activity.append(ActivityEntries.control(event, actor, position, at));
  }

  @Override
  public void statusLookup(
      Execution execution, String statusTool, String answer, int attempt, Instant at) {
    Objects.requireNonNull(execution, "execution");
    Objects.requireNonNull(answer, "answer");
    Objects.requireNonNull(at, "at");
    activity.append(
        ActivityEntries.statusLookup(execution, statusTool, answer, attempt, options.target(), at));
  }

  @Override
  public void session(SessionSeen seen) {
    Objects.requireNonNull(seen, "seen");
    synchronized (tracker) {
      FlatEntry entry = tracker.observe(seen);
      if (entry != null) {
        sessions.append(entry);
      }
    }
  }

  @Override
  public void flush() {
    activity.flush();
    sessions.flush();
  }

  /**
   * Writes what both journals buffered, without forcing it, and hands it to {@code out} as riders
   * of the execution journal's next frame (tagged {@link AuditRepair#tag}), whose fsync makes it
   * durable; see {@link AuditCommitObserver}.
   */
  public void collect(RiderSink out) {
    activity.collect(activityTag, out);
    sessions.collect(sessionsTag, out);
  }

  /** Forces what {@link #collect} wrote. */
  public void force() {
    activity.force();
    sessions.force();
  }

  /**
   * Why the journals take no more entries (a write or fsync failed: every later transition of a
   * journal store then fails too), or null while both can write. For readiness probes; names the
   * file and the I/O error, nothing else.
   */
  public String problem() {
    String p = activity.problem();
    return p != null ? p : sessions.problem();
  }

  /** Signs a checkpoint in each journal whose oldest unsigned entry reached the interval. */
  public void checkpointIfDue() {
    activity.checkpointIfDue();
    sessions.checkpointIfDue();
  }

  /** The key that verifies this directory's checkpoints (what {@code tally audit key} prints). */
  public AuditPublicKey publicKey() {
    return key.publicKey();
  }

  public Path directory() {
    return dir;
  }

  /**
   * Records the last sighting of sessions seen since their last entry, signs what is unsigned,
   * flushes, and releases the directory.
   */
  @Override
  public void close() {
    try {
      synchronized (tracker) {
        for (FlatEntry entry : tracker.drain()) {
          sessions.append(entry);
        }
      }
    } catch (AuditException e) {
      // Closed or failed before: the journals below report what they still can.
    } finally {
      try {
        activity.close();
      } finally {
        try {
          sessions.close();
        } finally {
          relief.close();
          release(lockChannel, null);
        }
      }
    }
  }

  private static void release(FileChannel lockChannel, Journal activity) {
    if (activity != null) {
      activity.close();
    }
    if (lockChannel != null) {
      try {
        lockChannel.close();
      } catch (IOException e) {
        // Closing the channel releases the lock; nothing else to undo.
      }
    }
  }

  @Override
  public String toString() {
    return "AuditJournals[" + dir + ", key " + key.publicKey().keyId() + "]";
  }
}
