package dev.tally.core.store.journal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.core.model.GateModelSuite;
import dev.tally.core.model.ModelStores;
import dev.tally.core.store.ExecutionStore;
import dev.tally.core.testing.MutableClock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * The gate model on the journal store: a crash closes the journal and opens it again on the same
 * directory, which records every execution left dispatched as {@code outcome_unknown}.
 *
 * <p>Segment fsyncs return at once ({@link FaultyDisk#skipForce}): a close and reopen reads the
 * same bytes with or without them, the model cannot observe a power loss, and an fsync per write
 * would leave time for a tenth of the seeds. The journal's own tests cover what fsync guarantees.
 */
class JournalGateModelTest extends GateModelSuite {
  @TempDir Path root;
  private int runs;
  private LogCapture log;

  @BeforeEach
  void captureLog() {
    log = LogCapture.start(); // one warning per reopen with orphans: kept out of the build log
  }

  /** What the journal logged names executions, never a credential or an argument value. */
  @AfterEach
  void nothingSecretLogged() {
    log.close();
    assertThat(log.warnings())
        .noneMatch(w -> w.contains("model-token") || w.contains("disk full") || w.contains("key-"));
  }

  @Override
  protected ModelStores stores() {
    Path dir = root.resolve("run-" + (runs++));
    return new ModelStores() {
      @Override
      public ExecutionStore open(MutableClock clock) {
        return openJournal(dir, clock);
      }

      @Override
      public ExecutionStore reopen(ExecutionStore store, MutableClock clock) {
        store.close();
        return openJournal(dir, clock);
      }

      @Override
      public boolean settlesOrphansOnOpen() {
        return true;
      }

      @Override
      public void dispose(ExecutionStore store) {
        store.close();
        delete(dir);
      }
    };
  }

  private static ExecutionStore openJournal(Path dir, MutableClock clock) {
    FaultyDisk disk = new FaultyDisk();
    disk.skipForce.set(true);
    JournalOptions options =
        JournalOptions.defaults(dir).withClock(clock).withMaxResultBytes(4096).withPreallocation(0);
    return JournalExecutionStore.open(options, disk, Compactor.Hooks.NONE);
  }

  private static void delete(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  protected String storeName() {
    return "journal";
  }
}
