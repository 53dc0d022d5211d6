package dev.tally.core.runtime;

import dev.tally.core.call.ToolCatalogue;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The tool catalogue kept in one small file beside the journal store ({@value #NAME} in its
 * directory): read once at start, replaced whole (written to a temporary file, fsync'd, renamed) on
 * a background thread whenever what is learned changes; the latest document wins and a crash leaves
 * the previous one. The directory is the store's own volume, so the catalogue survives what the
 * executions survive.
 */
final class CatalogueFile implements ToolCatalogue.Keeper, AutoCloseable {
  static final String NAME = "tool-catalogue.json";
  private static final System.Logger LOG = System.getLogger(CatalogueFile.class.getName());

  private final Path file;
  private final AtomicReference<byte[]> pending = new AtomicReference<>();
  private final ExecutorService writer =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "tally-catalogue-writer");
            t.setDaemon(true);
            return t;
          });

  CatalogueFile(Path dir) {
    this.file = dir.resolve(NAME);
  }

  Path path() {
    return file;
  }

  @Override
  public byte[] load() throws IOException {
    try {
      return Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      return null;
    }
  }

  @Override
  public void keep(byte[] document) {
    if (pending.getAndSet(document) == null) {
      try {
        writer.execute(this::drain);
      } catch (java.util.concurrent.RejectedExecutionException e) {
        pending.set(null); // closed: the process is stopping
      }
    }
  }

  private void drain() {
    byte[] doc = pending.getAndSet(null);
    if (doc == null) {
      return;
    }
    Path tmp = file.resolveSibling(NAME + ".tmp");
    try {
      Files.createDirectories(file.getParent());
      Files.deleteIfExists(tmp);
      Set<StandardOpenOption> create =
          Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
      // Owner-only like every file beside the store, from the moment it exists.
      try (FileChannel ch =
          tmp.getFileSystem().supportedFileAttributeViews().contains("posix")
              ? FileChannel.open(
                  tmp,
                  create,
                  PosixFilePermissions.asFileAttribute(
                      PosixFilePermissions.fromString("rw-------")))
              : FileChannel.open(tmp, create)) {
        ch.write(java.nio.ByteBuffer.wrap(doc));
        ch.force(true);
      }
      try {
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
      }
    } catch (IOException | RuntimeException e) {
      LOG.log(
          System.Logger.Level.WARNING,
          "tally: cannot keep the tool catalogue in "
              + file
              + " ("
              + e.getClass().getSimpleName()
              + "); it is listed again after a restart");
    }
  }

  /** Writes what is pending (bounded), then stops the writer. */
  @Override
  public void close() {
    writer.shutdown();
    try {
      writer.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
