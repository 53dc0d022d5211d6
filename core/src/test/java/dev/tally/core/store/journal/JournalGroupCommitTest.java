package dev.tally.core.store.journal;

import static dev.tally.core.store.journal.JournalFixture.claim;
import static dev.tally.core.testing.Stages.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.execution.Lease;
import dev.tally.core.execution.Transition;
import dev.tally.core.store.Claim;
import dev.tally.core.store.ExecutionQuery;
import dev.tally.core.testing.Executions;
import dev.tally.core.testing.MutableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Concurrent callers share fsyncs, and no caller thread writes or forces. */
class JournalGroupCommitTest {
  private static final int CALLERS = 64;

  @TempDir Path dir;
  private final MutableClock clock = MutableClock.create();
  private final FaultyDisk disk = new FaultyDisk();
  private final ExecutorService callers = Executors.newFixedThreadPool(CALLERS);
  private JournalExecutionStore store;

  @AfterEach
  void tearDown() {
    disk.release();
    callers.shutdownNow();
    if (store != null) {
      store.close();
    }
  }

  private JournalExecutionStore open() {
    return JournalExecutionStore.open(
        JournalOptions.defaults(dir).withClock(clock), disk, Compactor.Hooks.NONE);
  }

  @Test
  void concurrentTransitionsShareOneFsync() throws Exception {
    store = open();
    List<Execution> records = new ArrayList<>();
    for (int i = 0; i < CALLERS; i++) {
      records.add(claim(store, clock));
    }
    Execution blocker = claim(store, clock);
    disk.forcingThreads.clear();
    JournalStats before = store.stats();

    disk.holdNextForce();
    CompletableFuture<Execution> held =
        store
            .transition(Transition.to(blocker, ExecutionState.AUTHORIZED, clock.instant()))
            .toCompletableFuture();
    disk.awaitHolding();

    CountDownLatch start = new CountDownLatch(1);
    List<Future<CompletableFuture<Execution>>> calls = new ArrayList<>();
    for (Execution e : records) {
      calls.add(
          callers.submit(
              () -> {
                start.await();
                return store
                    .transition(Transition.to(e, ExecutionState.AUTHORIZED, clock.instant()))
                    .toCompletableFuture();
              }));
    }
    start.countDown();
    List<CompletableFuture<Execution>> stages = new ArrayList<>();
    for (Future<CompletableFuture<Execution>> call : calls) {
      // Every caller got its stage back while the writer is stuck in an fsync: no caller blocks.
      stages.add(call.get(20, TimeUnit.SECONDS));
    }
    assertThat(stages).noneMatch(CompletableFuture::isDone);
    assertThat(held).isNotDone();

    disk.release();
    await(held);
    for (CompletableFuture<Execution> s : stages) {
      assertThat(await(s).state()).isEqualTo(ExecutionState.AUTHORIZED);
    }

    JournalStats after = store.stats();
    long fsyncs = after.fsyncs() - before.fsyncs();
    long written = after.recordsWritten() - before.recordsWritten();
    System.out.printf(
        "group commit: %d transitions from %d callers in %d fsyncs (%.1f per fsync)%n",
        written - 1, CALLERS, fsyncs - 1, (written - 1.0) / Math.max(1, fsyncs - 1));
    assertThat(written).isEqualTo(CALLERS + 1);
    assertThat(fsyncs - 1).as("fsyncs for %d concurrent transitions", CALLERS).isLessThan(CALLERS);
    assertThat(fsyncs - 1).isEqualTo(1);
    assertThat(disk.forcingThreads).containsOnly("tally-journal-writer");
  }

  @Test
  void readsWaitUntilTheVersionTheyReturnIsDurable() throws Exception {
    store = open();
    Execution moving = claim(store, clock);
    Execution other = claim(store, clock);
    disk.holdNextForce();
    CompletableFuture<Execution> moved =
        store
            .transition(Transition.to(moving, ExecutionState.AUTHORIZED, clock.instant()))
            .toCompletableFuture();
    disk.awaitHolding();

    CompletableFuture<?> find = store.find(moving.id()).toCompletableFuture();
    CompletableFuture<?> holder =
        store.findHolder(moving.matchKey(), clock.instant()).toCompletableFuture();
    CompletableFuture<?> losingClaim =
        store
            .claim(Executions.candidate(clock).matchKey(moving.matchKey()).build(), clock.instant())
            .toCompletableFuture();
    CompletableFuture<?> listed =
        store.list(new ExecutionQuery(null, null, null, null, 10)).toCompletableFuture();
    assertThat(List.of(moved, find, holder, losingClaim, listed))
        .noneMatch(CompletableFuture::isDone);
    assertThat(await(store.find(other.id()))).as("durable records are not held up").contains(other);

    disk.release();
    Execution authorized = await(moved);
    assertThat(await(store.find(moving.id()))).contains(authorized);
    assertThat(find.get(20, TimeUnit.SECONDS)).isEqualTo(Optional.of(authorized));
    assertThat(holder.get(20, TimeUnit.SECONDS)).isEqualTo(Optional.of(authorized));
    assertThat(losingClaim.get(20, TimeUnit.SECONDS)).isEqualTo(new Claim.Existing(authorized));
    listed.get(20, TimeUnit.SECONDS);
  }

  @Test
  void aGroupDelayGathersRecordsThatArriveApartIntoOneFsync() {
    store =
        JournalExecutionStore.open(
            JournalOptions.defaults(dir)
                .withClock(clock)
                .withGroup(2, JournalOptions.DEFAULT_MAX_GROUP_BYTES, Duration.ofSeconds(1)),
            disk,
            Compactor.Hooks.NONE);
    JournalStats before = store.stats();
    CompletableFuture<?> first =
        store.claim(Executions.candidate(clock).build(), clock.instant()).toCompletableFuture();
    CompletableFuture<?> second =
        store.claim(Executions.candidate(clock).build(), clock.instant()).toCompletableFuture();
    await(first);
    await(second);

    assertThat(store.stats().fsyncs() - before.fsyncs()).isEqualTo(1);
    assertThat(store.stats().recordsWritten() - before.recordsWritten()).isEqualTo(2);
  }

  @Test
  void freeRunningConcurrentCallersGetSeveralRecordsPerFsync() throws Exception {
    store = open();
    List<Execution> records = new ArrayList<>();
    for (int i = 0; i < CALLERS; i++) {
      records.add(claim(store, clock));
    }
    JournalStats before = store.stats();
    CountDownLatch start = new CountDownLatch(1);
    List<Future<?>> loops = new ArrayList<>();
    for (Execution e : records) {
      loops.add(
          callers.submit(
              () -> {
                start.await();
                Execution current = e;
                for (int k = 0; k < 10; k++) {
                  current =
                      await(
                          store.touch(
                              current.id(),
                              current.version(),
                              new Lease("owner-a", clock.instant().plusSeconds(k)),
                              false));
                }
                return current;
              }));
    }
    start.countDown();
    for (Future<?> f : loops) {
      f.get(20, TimeUnit.SECONDS);
    }
    JournalStats after = store.stats();
    long fsyncs = after.fsyncs() - before.fsyncs();
    long written = after.recordsWritten() - before.recordsWritten();
    System.out.printf(
        "group commit, free running: %d records from %d callers in %d fsyncs (%.1f per fsync)%n",
        written, CALLERS, fsyncs, (double) written / fsyncs);
    assertThat(written).isEqualTo(CALLERS * 10L);
    assertThat((double) written / fsyncs).isGreaterThan(2.0);
  }
}
