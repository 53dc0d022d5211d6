package dev.tally.core.audit;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * Small durable file operations: atomic creation with a mode, directory fsync. What the audit
 * directory holds is created owner-only ({@code rwx------} directories, {@code rw-------} files) on
 * POSIX file systems, the mode given at creation rather than set afterwards: the journals name
 * actors, tools and targets, and the signing key is secret. Only the public key is world-readable.
 */
final class FileOps {
  static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");
  static final Set<PosixFilePermission> OWNER_ONLY_DIRECTORY =
      PosixFilePermissions.fromString("rwx------");
  static final Set<PosixFilePermission> WORLD_READABLE =
      PosixFilePermissions.fromString("rw-r--r--");

  private FileOps() {}

  /** Creates {@code dir} and any missing parents owner-only; existing ones keep their mode. */
  static void createDirectories(Path dir) throws IOException {
    if (posix(dir)) {
      Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(OWNER_ONLY_DIRECTORY));
    } else {
      Files.createDirectories(dir);
    }
  }

  /** Opens {@code file} with {@code options}; when this creates it, it is created owner-only. */
  static FileChannel openOwnerOnly(Path file, Set<StandardOpenOption> options) throws IOException {
    if (posix(file)) {
      return FileChannel.open(file, options, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
    }
    return FileChannel.open(file, options);
  }

  private static boolean posix(Path p) {
    return p.getFileSystem().supportedFileAttributeViews().contains("posix");
  }

  /**
   * Creates {@code file} with {@code content}, fsync'd, so that it never exists half-written and is
   * never readable by others than {@code perms} allows, not even for a moment. Fails if it exists.
   */
  static void createAtomically(Path file, byte[] content, Set<PosixFilePermission> perms)
      throws IOException {
    Path dir = file.toAbsolutePath().getParent();
    Path tmp = dir.resolve(file.getFileName() + ".tmp");
    Files.deleteIfExists(tmp);
    try (FileChannel ch = openNew(tmp, perms)) {
      ByteBuffer buf = ByteBuffer.wrap(content);
      while (buf.hasRemaining()) {
        ch.write(buf);
      }
      ch.force(true);
    }
    if (Files.exists(file)) {
      Files.delete(tmp);
      throw new FileAlreadyExistsException(file.toString());
    }
    try {
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(tmp, file);
    }
    fsyncDirectory(dir);
  }

  private static FileChannel openNew(Path file, Set<PosixFilePermission> perms) throws IOException {
    try {
      return FileChannel.open(
          file,
          Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
          PosixFilePermissions.asFileAttribute(perms));
    } catch (UnsupportedOperationException e) {
      return FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    }
  }

  /** Makes a file's creation or rename in {@code dir} durable (a no-op where unsupported). */
  static void fsyncDirectory(Path dir) throws IOException {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    } catch (IOException e) {
      // Some platforms (Windows) cannot open a directory; the rename is then as durable as it gets.
      if (Files.isDirectory(dir) && !System.getProperty("os.name", "").startsWith("Windows")) {
        throw e;
      }
    }
  }

  /** The POSIX mode of {@code file}, or {@code null} where the file system has none. */
  static Set<PosixFilePermission> posixMode(Path file) throws IOException {
    try {
      return Files.getPosixFilePermissions(file);
    } catch (UnsupportedOperationException e) {
      return null;
    }
  }
}
