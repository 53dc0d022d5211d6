package dev.tally.core.store.journal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.util.Set;

/** Opens the journal's file channels; tests substitute a failing disk. */
@FunctionalInterface
interface ChannelFactory {
  ChannelFactory DEFAULT = FileChannel::open;

  /**
   * Opens {@code path}; {@code attributes} (the file's mode) apply only when this creates it, as in
   * {@link FileChannel#open(Path, Set, FileAttribute[])}.
   */
  FileChannel open(Path path, Set<? extends OpenOption> options, FileAttribute<?>... attributes)
      throws IOException;

  /** Opens an existing file, or creates one with the platform's default mode. */
  default FileChannel open(Path path, OpenOption... options) throws IOException {
    return open(path, Set.of(options));
  }
}
