package dev.tally.core.store.journal;

import static dev.tally.core.store.journal.JournalFixture.populate;
import static dev.tally.core.testing.Stages.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tally.core.testing.MutableClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Journal records name actors and tools and hold stored results: every directory and file the store
 * creates is its owner's only (0700 / 0600), whatever the process's umask lets through.
 */
class JournalFileModesTest {
  @TempDir Path tmp;
  private final MutableClock clock = MutableClock.create();

  @Test
  void everyDirectoryAndFileTheStoreCreatesIsOwnerOnly() throws IOException {
    assumeTrue(tmp.getFileSystem().supportedFileAttributeViews().contains("posix"));
    Path dir = tmp.resolve("data").resolve("journal");
    try (JournalExecutionStore store =
        JournalExecutionStore.open(JournalOptions.defaults(dir).withClock(clock))) {
      populate(store, clock);
      await(store.compactNow()); // a snapshot and a new segment, through their temporary files
      populate(store, clock);
    }
    Map<String, String> modes = modes(tmp.resolve("data"));
    assertThat(modes.keySet())
        .as("segments, a snapshot and the lock were created")
        .anyMatch(n -> n.startsWith("journal/journal-"))
        .anyMatch(n -> n.startsWith("journal/snapshot-"))
        .contains("journal/" + JournalDir.LOCK_FILE);
    assertThat(modes)
        .allSatisfy(
            (name, mode) ->
                assertThat(mode)
                    .as(name)
                    .isEqualTo(name.endsWith("/") ? "rwx------" : "rw-------"));
  }

  /** Mode of everything under {@code root}, by relative path (directories end with {@code /}). */
  static Map<String, String> modes(Path root) throws IOException {
    Map<String, String> out = new TreeMap<>();
    try (Stream<Path> all = Files.walk(root)) {
      for (Path p : (Iterable<Path>) all::iterator) {
        String name = root.relativize(p).toString();
        if (Files.isDirectory(p)) {
          name += "/";
        }
        out.put(name, PosixFilePermissions.toString(Files.getPosixFilePermissions(p)));
      }
    }
    return out;
  }
}
