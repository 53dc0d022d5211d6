package dev.tally.core.store.journal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;

/** Opens the journal's file channels; tests substitute a failing disk. */
@FunctionalInterface
interface ChannelFactory {
  ChannelFactory DEFAULT = FileChannel::open;

  FileChannel open(Path path, OpenOption... options) throws IOException;
}
