package dev.tally.core.store.journal;

import static dev.tally.core.store.journal.JournalFixture.claim;
import static dev.tally.core.testing.Stages.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.core.execution.Execution;
import dev.tally.core.store.StoreException;
import dev.tally.core.testing.MutableClock;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One store per directory (another process: {@link JournalLockIT}). */
class JournalLockTest {
  @TempDir Path dir;
  private final MutableClock clock = MutableClock.create();

  private JournalExecutionStore open() {
    return JournalExecutionStore.open(JournalOptions.defaults(dir).withClock(clock));
  }

  @Test
  void secondStoreOnTheSameDirectoryIsRefusedUntilTheFirstCloses() {
    JournalExecutionStore first = open();
    Execution e = claim(first, clock);

    assertThatThrownBy(this::open)
        .isInstanceOfSatisfying(
            StoreException.class,
            ex -> assertThat(ex.code()).isEqualTo(StoreException.Code.UNAVAILABLE))
        .hasMessageContaining(dir.toString())
        .hasMessageContaining("in use by another Tally store");
    assertThat(await(first.find(e.id()))).contains(e);
    assertThat(first.isWritable()).isTrue();

    first.close();
    try (JournalExecutionStore second = open()) {
      assertThat(await(second.find(e.id()))).contains(e);
    }
  }

  @Test
  void aStoppedStoreReleasesTheDirectoryWithoutAnyCleanClose() {
    JournalExecutionStore first = open();
    Execution e = claim(first, clock);
    first.halt();

    try (JournalExecutionStore second = open()) {
      assertThat(await(second.find(e.id()))).contains(e);
    }
  }

  @Test
  void optionsAreCheckedWithTheirNames() {
    JournalOptions d = JournalOptions.defaults(dir);
    assertThatThrownBy(() -> d.withMaxResultBytes(-1))
        .hasMessage("store.journal.maxResultBytes: -1 (expected: zero or more bytes)");
    assertThatThrownBy(() -> d.withCompaction(0, 0.5))
        .hasMessageContaining("store.journal.compactRatio: 0.5");
    assertThatThrownBy(() -> d.withGroup(0, 1, java.time.Duration.ZERO))
        .hasMessageContaining("store.journal.maxGroupRecords: 0");
    assertThatThrownBy(() -> d.withGroup(1, 1, java.time.Duration.ofSeconds(-1)))
        .hasMessageContaining("store.journal.maxGroupDelay");
  }
}
