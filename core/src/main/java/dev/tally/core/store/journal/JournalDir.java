package dev.tally.core.store.journal;

import dev.tally.core.store.StoreException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The journal directory: file names, the single-writer lock, atomic file creation and directory
 * fsync. Holding an instance means holding the lock; {@link #close()} releases it.
 *
 * <pre>
 * tally.lock                        held with FileChannel.tryLock while a store is open
 * journal-00000000000000000007.log  segment 7: records appended by the writer
 * snapshot-00000000000000000006.snap  all live records of segments 1..6 (compaction output)
 * journal-*.tmp, snapshot-*.tmp      unfinished files; deleted at start
 * </pre>
 *
 * Other files in the directory are left alone.
 */
final class JournalDir implements AutoCloseable {
  static final String LOCK_FILE = "tally.lock";
  private static final String SEGMENT_PREFIX = "journal-";
  private static final String SEGMENT_SUFFIX = ".log";
  private static final String SNAPSHOT_PREFIX = "snapshot-";
  private static final String SNAPSHOT_SUFFIX = ".snap";
  static final String TMP_SUFFIX = ".tmp";
  private static final boolean WINDOWS =
      System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows");

  private final Path dir;
  private final ChannelFactory channels;
  private final FileChannel lockChannel;
  private final FileLock lock;

  private JournalDir(Path dir, ChannelFactory channels, FileChannel lockChannel, FileLock lock) {
    this.dir = dir;
    this.channels = channels;
    this.lockChannel = lockChannel;
    this.lock = lock;
  }

  /**
   * Creates the directory if needed and takes its lock; refuses with {@link
   * StoreException.Code#UNAVAILABLE} when another process or another store in this JVM holds it.
   */
  static JournalDir lock(Path dir, ChannelFactory channels) {
    Path lockPath = dir.resolve(LOCK_FILE);
    FileChannel ch = null;
    try {
      if (!Files.isDirectory(dir)) {
        OwnerOnly.createDirectories(dir);
        syncDirectory(dir.toAbsolutePath().getParent());
      }
      ch =
          channels.open(
              lockPath,
              Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE),
              OwnerOnly.file(dir));
      FileLock lock;
      try {
        lock = ch.tryLock();
      } catch (OverlappingFileLockException e) {
        lock = null;
      }
      if (lock == null) {
        throw new StoreException(
            StoreException.Code.UNAVAILABLE,
            "journal directory "
                + dir
                + " is in use by another Tally store (lock "
                + lockPath
                + " is held); only one process may open it at a time");
      }
      return new JournalDir(dir, channels, ch, lock);
    } catch (IOException e) {
      closeQuietly(ch);
      throw new StoreException(
          StoreException.Code.UNAVAILABLE, "cannot open journal directory " + dir + ": " + e, e);
    } catch (RuntimeException e) {
      closeQuietly(ch);
      throw e;
    }
  }

  Path path() {
    return dir;
  }

  ChannelFactory channels() {
    return channels;
  }

  Path segment(long seq) {
    return dir.resolve(
        String.format(Locale.ROOT, "%s%020d%s", SEGMENT_PREFIX, seq, SEGMENT_SUFFIX));
  }

  Path snapshot(long seq) {
    return dir.resolve(
        String.format(Locale.ROOT, "%s%020d%s", SNAPSHOT_PREFIX, seq, SNAPSHOT_SUFFIX));
  }

  static Path tmp(Path file) {
    return file.resolveSibling(file.getFileName() + TMP_SUFFIX);
  }

  /** The journal files present, by kind and sequence. */
  record Listing(TreeMap<Long, Path> segments, TreeMap<Long, Path> snapshots, List<Path> tmps) {}

  Listing list() throws IOException {
    TreeMap<Long, Path> segments = new TreeMap<>();
    TreeMap<Long, Path> snapshots = new TreeMap<>();
    List<Path> tmps = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path p : (Iterable<Path>) files::iterator) {
        String name = p.getFileName().toString();
        if (name.endsWith(TMP_SUFFIX)) {
          // Only our own: other files may share the directory (the generated key file does).
          if (name.startsWith(SEGMENT_PREFIX) || name.startsWith(SNAPSHOT_PREFIX)) {
            tmps.add(p);
          }
        } else if (name.startsWith(SEGMENT_PREFIX) && name.endsWith(SEGMENT_SUFFIX)) {
          Long seq = sequence(name, SEGMENT_PREFIX, SEGMENT_SUFFIX);
          if (seq != null) {
            segments.put(seq, p);
          }
        } else if (name.startsWith(SNAPSHOT_PREFIX) && name.endsWith(SNAPSHOT_SUFFIX)) {
          Long seq = sequence(name, SNAPSHOT_PREFIX, SNAPSHOT_SUFFIX);
          if (seq != null) {
            snapshots.put(seq, p);
          }
        }
      }
    }
    return new Listing(segments, snapshots, tmps);
  }

  private static Long sequence(String name, String prefix, String suffix) {
    String digits = name.substring(prefix.length(), name.length() - suffix.length());
    if (digits.isEmpty() || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
      return null;
    }
    try {
      return Long.parseLong(digits);
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /**
   * Creates {@code file} atomically with just its header: written to a temporary file, forced,
   * renamed, directory forced. Returns a channel open for reading and writing, positioned nowhere
   * (callers write at explicit positions).
   */
  FileChannel create(Path file, short kind, long seq) throws IOException {
    Path tmp = tmp(file);
    try (FileChannel ch = createNew(tmp)) {
      writeFully(ch, JournalFormat.header(kind, seq), 0);
      ch.force(true);
    }
    move(tmp, file);
    sync();
    return channels.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
  }

  /**
   * Creates {@code file} owner-only ({@link OwnerOnly}) for writing; a leftover of an earlier
   * attempt is deleted first, so the new file never inherits its mode.
   */
  FileChannel createNew(Path file) throws IOException {
    Files.deleteIfExists(file);
    return channels.open(
        file, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE), OwnerOnly.file(dir));
  }

  /** Renames atomically (falls back to a plain replace where atomic moves are unsupported). */
  static void move(Path from, Path to) throws IOException {
    try {
      Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
    }
  }

  static void writeFully(FileChannel ch, java.nio.ByteBuffer b, long position) throws IOException {
    long p = position;
    while (b.hasRemaining()) {
      p += ch.write(b, p);
    }
  }

  /** Forces the directory so that creations, renames and deletions in it survive a crash. */
  void sync() throws IOException {
    syncDirectory(dir);
  }

  private static void syncDirectory(Path d) throws IOException {
    if (d == null || WINDOWS) {
      return; // Windows cannot open a directory as a channel; NTFS journals metadata itself.
    }
    try (FileChannel ch = FileChannel.open(d, StandardOpenOption.READ)) {
      ch.force(true);
    }
  }

  @Override
  public void close() {
    try {
      lock.release();
    } catch (IOException e) {
      // The channel close below releases it as well.
    }
    closeQuietly(lockChannel);
  }

  static void closeQuietly(AutoCloseable c) {
    if (c != null) {
      try {
        c.close();
      } catch (Exception e) {
        // Nothing to do: the file is abandoned either way.
      }
    }
  }
}
