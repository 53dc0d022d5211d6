package dev.tally.core.store.journal;

import static dev.tally.core.store.journal.JournalFixture.claim;
import static dev.tally.core.store.journal.JournalFixture.directoryBytes;
import static dev.tally.core.store.journal.JournalFixture.dump;
import static dev.tally.core.store.journal.JournalFixture.fileNames;
import static dev.tally.core.store.journal.JournalFixture.populate;
import static dev.tally.core.testing.Stages.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.core.execution.Execution;
import dev.tally.core.execution.Lease;
import dev.tally.core.store.journal.Compactor.Step;
import dev.tally.core.testing.MutableClock;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Background compaction: what it keeps, that writers go on, and that a crash loses nothing. */
class JournalCompactionTest {
  private static final String SEGMENT_1 = "journal-00000000000000000001.log";
  private static final String SEGMENT_2 = "journal-00000000000000000002.log";
  private static final String SNAPSHOT_1 = "snapshot-00000000000000000001.snap";

  @TempDir Path dir;
  private final MutableClock clock = MutableClock.create();
  private JournalExecutionStore store;

  /** What a hook throws to stop a compaction where a crash would. */
  private static final class SimulatedCrash extends RuntimeException {
    private static final long serialVersionUID = 1L;

    SimulatedCrash(Step step) {
      super("simulated crash at " + step, null, false, false);
    }
  }

  @AfterEach
  void tearDown() {
    if (store != null) {
      store.close();
    }
  }

  /** Without preallocation, so that the directory's bytes are its records'. */
  private JournalOptions options() {
    return JournalOptions.defaults(dir)
        .withClock(clock)
        .withMaxResultBytes(256)
        .withPreallocation(0);
  }

  private JournalExecutionStore open(Compactor.Hooks hooks) {
    return JournalExecutionStore.open(options(), ChannelFactory.DEFAULT, hooks);
  }

  private JournalExecutionStore reopenAfterCrash() {
    store.halt();
    store = open(Compactor.Hooks.NONE);
    return store;
  }

  @Test
  void compactionKeepsTheLatestRecordOfEveryLiveExecutionAndDropsTheRest() throws IOException {
    store = open(Compactor.Hooks.NONE);
    populate(store, clock);
    JournalFixture.Dump before = dump(store);
    long bytesBefore = directoryBytes(dir);

    await(store.compactNow());

    assertThat(fileNames(dir)).containsExactly(SEGMENT_2, SNAPSHOT_1, JournalDir.LOCK_FILE);
    assertThat(directoryBytes(dir)).isLessThan(bytesBefore / 2);
    List<JournalEntry> records = new ArrayList<>();
    try (FileChannel ch = FileChannel.open(dir.resolve(SNAPSHOT_1), StandardOpenOption.READ)) {
      JournalReader.read(
          ch,
          dir.resolve(SNAPSHOT_1),
          JournalFormat.KIND_SNAPSHOT,
          1,
          false,
          (entry, size) -> records.add(entry));
    }
    assertThat(before.records()).hasSize(16);
    assertThat(before.results()).hasSize(4);
    assertThat(records)
        .as("one record per live execution")
        .hasSize(16)
        .allMatch(r -> r instanceof JournalEntry.Put);
    assertThat(dump(store)).isEqualTo(before);
    assertThat(store.stats().compactions()).isEqualTo(1);

    assertThat(dump(reopenAfterCrash())).isEqualTo(before);
  }

  @ParameterizedTest
  @EnumSource(Step.class)
  void crashAtAnyStepOfCompactionLosesNothing(Step crashAt) {
    store =
        open(
            step -> {
              if (step == crashAt) {
                throw new SimulatedCrash(step);
              }
            });
    populate(store, clock);
    assertThatThrownBy(() -> await(store.compactNow())).isInstanceOf(SimulatedCrash.class);
    claim(store, clock); // lands in the segment the writer rolled to
    JournalFixture.Dump expected = dump(store);

    reopenAfterCrash();

    assertThat(dump(store)).isEqualTo(expected);
    List<String> files = fileNames(dir);
    assertThat(files).noneMatch(f -> f.endsWith(".tmp"));
    if (crashAt.compareTo(Step.SNAPSHOT_RENAMED) >= 0) {
      assertThat(files).contains(SNAPSHOT_1, SEGMENT_2).doesNotContain(SEGMENT_1);
    } else {
      assertThat(files).contains(SEGMENT_1, SEGMENT_2).doesNotContain(SNAPSHOT_1);
    }

    await(store.compactNow());
    claim(store, clock);
    JournalFixture.Dump later = dump(store);
    assertThat(dump(reopenAfterCrash())).isEqualTo(later);
  }

  @Test
  void writersKeepAppendingWhileACompactionRuns() throws Exception {
    CountDownLatch paused = new CountDownLatch(1);
    CountDownLatch resume = new CountDownLatch(1);
    store =
        open(
            step -> {
              if (step == Step.SNAPSHOT_WRITTEN) {
                paused.countDown();
                try {
                  resume.await(20, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              }
            });
    populate(store, clock);
    CompletableFuture<Void> compaction = store.compactNow();
    assertThat(paused.await(20, TimeUnit.SECONDS)).isTrue();

    List<Execution> during = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      Execution e = claim(store, clock);
      during.add(
          await(
              store.touch(
                  e.id(),
                  e.version(),
                  new Lease("owner-b", clock.instant().plusSeconds(9)),
                  false)));
    }
    assertThat(compaction).isNotDone();
    resume.countDown();
    await(compaction);
    JournalFixture.Dump expected = dump(store);

    assertThat(dump(reopenAfterCrash())).isEqualTo(expected);
    for (Execution e : during) {
      assertThat(await(store.find(e.id()))).contains(e);
    }
  }

  @Test
  void compactionStartsByItselfWhenTheJournalOutgrowsItsLiveRecords() throws Exception {
    CountDownLatch compacted = new CountDownLatch(1);
    store =
        JournalExecutionStore.open(
            options().withCompaction(8 * 1024, 2.0),
            ChannelFactory.DEFAULT,
            step -> {
              if (step == Step.OLD_FILES_DELETED) {
                compacted.countDown();
              }
            });
    Execution e = claim(store, clock);
    for (int i = 0; i < 100; i++) {
      e =
          await(
              store.touch(
                  e.id(),
                  e.version(),
                  new Lease("owner-a", clock.instant().plusSeconds(i)),
                  false));
    }
    assertThat(compacted.await(20, TimeUnit.SECONDS)).isTrue();
    assertThat(store.stats().compactions()).isPositive();

    await(store.compactNow());
    assertThat(directoryBytes(dir)).as("one live record left").isLessThan(2048);
    assertThat(await(reopenAfterCrash().find(e.id()))).contains(e);
  }

  /**
   * With segments preallocated (the default), compaction must go on as the journal keeps growing,
   * not stop after the first: a closed segment's preallocated zeros once made the log look 4 MiB
   * smaller per compaction than it was.
   */
  @Test
  void compactionKeepsRunningWhileTheJournalGrowsWithPreallocatedSegments() throws Exception {
    java.util.concurrent.atomic.AtomicInteger compactions =
        new java.util.concurrent.atomic.AtomicInteger();
    store =
        JournalExecutionStore.open(
            options().withPreallocation(4L << 20).withCompaction(8 * 1024, 2.0),
            ChannelFactory.DEFAULT,
            step -> {
              if (step == Step.OLD_FILES_DELETED) {
                compactions.incrementAndGet();
              }
            });
    Execution e = claim(store, clock);
    // Appends until the fourth compaction, bounded by time, not by a count: on a busy machine the
    // compactor thread may lag the appends, and only appends start the next compaction. A
    // compactor that stops after the first one (the bug this guards) never gets there.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    int touches = 0;
    while (compactions.get() < 4) {
      assertThat(System.nanoTime() - deadline)
          .as("4 compactions within 60 s; %d after %d appends", compactions.get(), touches)
          .isNegative();
      e =
          await(
              store.touch(
                  e.id(),
                  e.version(),
                  new Lease("owner-a", clock.instant().plusSeconds(touches++)),
                  false));
    }
    await(store.compactNow());
    assertThat(directoryBytes(dir))
        .as("one live record and the preallocated tail of the open segment")
        .isLessThan((4L << 20) + 64 * 1024);
    assertThat(await(reopenAfterCrash().find(e.id()))).contains(e);
  }

  /** An observer that hands over {@code bytes} of rider per group (the audit trail's share). */
  private static CommitObserver ridersOf(int bytes, java.util.concurrent.atomic.AtomicLong forced) {
    byte[] tag = "activity.jsonl test".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    byte[] rider = new byte[bytes];
    long[] offset = {0};
    return new CommitObserver() {
      @Override
      public void applied(Execution before, Execution after) {}

      @Override
      public void collect(RiderSink out) {
        out.accept(tag, offset[0], rider, 0, rider.length);
        offset[0] += rider.length;
      }

      @Override
      public void force() {
        forced.incrementAndGet();
      }
    };
  }

  /**
   * Riders are never live: they must not make compaction rewrite the live records more often (they
   * once doubled its rate under load), yet they go with the segments a compaction replaces.
   */
  @Test
  void ridersDoNotTriggerCompactionButGoWithIt() throws Exception {
    java.util.concurrent.atomic.AtomicLong forced = new java.util.concurrent.atomic.AtomicLong();
    store = JournalExecutionStore.open(options().withCompaction(8 * 1024, 2.0));
    store.observe(ridersOf(4096, forced));
    List<Execution> all = new java.util.ArrayList<>();
    for (int i = 0; i < 40; i++) {
      all.add(claim(store, clock)); // every record stays live: the log alone never doubles
    }
    // Asked on the writer thread after the last group: its compaction decision is made by then.
    assertThat(await(store.compacting())).as("a compaction started by 160 KB of riders").isFalse();
    assertThat(store.stats().compactions()).as("compactions started by 160 KB of riders").isZero();
    assertThat(directoryBytes(dir)).isGreaterThan(40 * 4096);

    await(store.compactNow());
    assertThat(forced.get()).as("the riders' files forced before the segments went").isOne();
    assertThat(directoryBytes(dir)).as("the riders went with the segments").isLessThan(40 * 1024);
    JournalExecutionStore reopened = reopenAfterCrash();
    for (Execution e : all) {
      assertThat(await(reopened.find(e.id()))).contains(e);
    }
  }
}
