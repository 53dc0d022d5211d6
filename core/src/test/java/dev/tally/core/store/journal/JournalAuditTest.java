package dev.tally.core.store.journal;

import static dev.tally.core.testing.Stages.await;
import static dev.tally.core.testing.Stages.failure;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.core.audit.AuditCommitObserver;
import dev.tally.core.audit.AuditJournals;
import dev.tally.core.audit.AuditOptions;
import dev.tally.core.audit.AuditVerification;
import dev.tally.core.audit.AuditVerifier;
import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.execution.Lease;
import dev.tally.core.execution.Transition;
import dev.tally.core.store.Claim;
import dev.tally.core.testing.Executions;
import dev.tally.core.testing.MutableClock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The audit trail of a journal store ({@link AuditCommitObserver}): a transition's activity entry
 * is written to its file and rides in the group's frame before the transition's stage completes.
 */
class JournalAuditTest {
  @TempDir Path root;
  private final MutableClock clock = MutableClock.create();
  private JournalExecutionStore store;
  private AuditJournals audit;

  @AfterEach
  void tearDown() {
    if (store != null) {
      store.close();
    }
    if (audit != null) {
      audit.close();
    }
  }

  private void open() {
    store =
        JournalExecutionStore.open(
            JournalOptions.defaults(root.resolve("journal")).withClock(clock));
    audit = AuditJournals.open(root.resolve("audit"), AuditOptions.defaults().withClock(clock));
    store.observe(AuditCommitObserver.of(audit));
  }

  /** The activity lines on disk now (no flush, no close). */
  private List<String> activityOnDisk() {
    try {
      return Files.readAllLines(
          root.resolve("audit").resolve("activity.jsonl"), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static boolean hasEntry(List<String> lines, Execution e) {
    String id = "\"execution\":\"" + e.id().value() + "\"";
    String version = "\"version\":" + e.version();
    String state = "\"state\":\"" + e.state().wireName() + "\"";
    return lines.stream().anyMatch(l -> l.contains(id) && l.contains(version) && l.contains(state));
  }

  /** Awaits {@code stage}, asserting the entry was on disk when it completed. */
  private Execution awaitAudited(CompletableFuture<Execution> stage) {
    CompletableFuture<Boolean> seen = stage.thenApply(e -> hasEntry(activityOnDisk(), e));
    Execution e = await(stage);
    assertThat(await(seen))
        .as("entry of %s v%d on disk at completion", e.id(), e.version())
        .isTrue();
    return e;
  }

  @Test
  void everyTransitionIsOnTheAuditDiskWhenItsStageCompletes() {
    open();
    List<Execution> done = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      clock.advance(Duration.ofMillis(1));
      Execution e =
          awaitAudited(
              store
                  .claim(Executions.candidate(clock).build(), clock.instant())
                  .thenApply(Claim::execution)
                  .toCompletableFuture());
      Transition authorized = Transition.to(e, ExecutionState.AUTHORIZED, clock.instant());
      e = awaitAudited(store.transition(authorized).toCompletableFuture());
      Transition dispatched =
          Transition.to(e, ExecutionState.DISPATCHED, clock.instant())
              .withLease(new Lease("owner-a", clock.instant().plusSeconds(30)));
      e = awaitAudited(store.transition(dispatched).toCompletableFuture());
      done.add(e);
    }
    List<String> lines = activityOnDisk();
    assertThat(lines.stream().filter(l -> l.contains("\"from\":\"authorized\""))).hasSize(20);

    store.halt(); // a crash: nothing more is written or flushed
    store = null;
    AuditVerification v = AuditVerifier.create().verify(root.resolve("audit"), Optional.empty());
    assertThat(v.outcome()).isIn(AuditVerification.Outcome.OK, AuditVerification.Outcome.TAIL);
    assertThat(v.bad()).isEmpty();
    for (Execution e : done) {
      assertThat(hasEntry(activityOnDisk(), e)).isTrue();
    }
  }

  @Test
  void concurrentTransitionsShareAuditFlushesAndAllAreRecorded() {
    open();
    List<CompletableFuture<Execution>> claims = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      claims.add(
          store
              .claim(Executions.candidate(clock).build(), clock.instant())
              .thenApply(Claim::execution)
              .toCompletableFuture());
    }
    List<Execution> all = new ArrayList<>();
    for (CompletableFuture<Execution> c : claims) {
      all.add(awaitAudited(c));
    }
    List<String> lines = activityOnDisk();
    for (Execution e : all) {
      assertThat(hasEntry(lines, e)).isTrue();
    }
    assertThat(store.stats().fsyncs()).isLessThanOrEqualTo(200);
    // Every entry rode in a frame: the riders hold at least the file's bytes.
    assertThat(store.stats().riderBytes())
        .isGreaterThanOrEqualTo(String.join("\n", lines).length());
  }

  @Test
  void aFailingObserverFailsTheStageButTheChangeStands() {
    store =
        JournalExecutionStore.open(
            JournalOptions.defaults(root.resolve("journal")).withClock(clock));
    IllegalStateException boom = new IllegalStateException("audit journal closed");
    store.observe(
        JournalFixture.observer(
            (before, after) -> {
              if (after.state() == ExecutionState.AUTHORIZED) {
                throw boom;
              }
            },
            out -> {},
            () -> {}));
    Execution e =
        await(store.claim(Executions.candidate(clock).build(), clock.instant())).execution();
    var stage = store.transition(Transition.to(e, ExecutionState.AUTHORIZED, clock.instant()));

    assertThat(failure(stage)).isSameAs(boom);
    assertThat(await(store.find(e.id())).orElseThrow().state())
        .isEqualTo(ExecutionState.AUTHORIZED);
  }

  @Test
  void aFailingCollectFailsTheStagesOfItsGroup() {
    store =
        JournalExecutionStore.open(
            JournalOptions.defaults(root.resolve("journal")).withClock(clock));
    IllegalStateException boom = new IllegalStateException("audit fsync failed");
    store.observe(
        JournalFixture.observer(
            (before, after) -> {},
            out -> {
              throw boom;
            },
            () -> {}));
    var stage = store.claim(Executions.candidate(clock).build(), clock.instant());
    assertThat(failure(stage)).isSameAs(boom);
  }

  /** A full disk fails every group the same way: one warning, not one per group. */
  @Test
  void aCollectThatKeepsFailingIsLoggedOnceNotPerGroup() {
    store =
        JournalExecutionStore.open(
            JournalOptions.defaults(root.resolve("journal")).withClock(clock));
    store.observe(
        JournalFixture.observer(
            (before, after) -> {},
            out -> {
              throw new IllegalStateException("No space left on device");
            },
            () -> {}));
    try (LogCapture log = LogCapture.start()) {
      for (int i = 0; i < 20; i++) {
        var stage = store.claim(Executions.candidate(clock).build(), clock.instant());
        assertThat(failure(stage)).hasMessageContaining("No space left");
      }
      assertThat(log.warnings())
          .filteredOn(w -> w.contains("commit observer failed"))
          .singleElement()
          .asString()
          .contains("(1 group(s) so far)");
    }
  }
}
