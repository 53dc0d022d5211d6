package dev.tally.core.store.journal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * The mode of everything the journal creates: directories {@code rwx------} (0700), files {@code
 * rw-------} (0600) on POSIX file systems, given at creation (a later {@code chmod} would leave a
 * window in which others could open the file). Journal records hold actors, tool names and stored
 * results; nobody but the sidecar's user needs to read them. Elsewhere (Windows) the platform's
 * default applies.
 */
final class OwnerOnly {
  private static final FileAttribute<?>[] NONE = new FileAttribute<?>[0];
  private static final FileAttribute<?>[] FILE = {
    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))
  };
  private static final FileAttribute<?>[] DIRECTORY = {
    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"))
  };

  private OwnerOnly() {}

  /** The attributes a new file in {@code dir} is created with. */
  static FileAttribute<?>[] file(Path dir) {
    return posix(dir) ? FILE.clone() : NONE;
  }

  /** Creates {@code dir} and any missing parents owner-only; existing ones keep their mode. */
  static void createDirectories(Path dir) throws IOException {
    if (posix(dir)) {
      Files.createDirectories(dir, DIRECTORY.clone());
    } else {
      Files.createDirectories(dir);
    }
  }

  private static boolean posix(Path p) {
    return p.getFileSystem().supportedFileAttributeViews().contains("posix");
  }
}
