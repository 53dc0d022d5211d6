package dev.tally.core.store.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.core.audit.AuditCommitObserver;
import dev.tally.core.audit.AuditException;
import dev.tally.core.audit.AuditFiles;
import dev.tally.core.audit.AuditJournals;
import dev.tally.core.audit.AuditOptions;
import dev.tally.core.audit.AuditRepair;
import dev.tally.core.audit.AuditVerification;
import dev.tally.core.audit.AuditVerifier;
import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.testing.MutableClock;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Audit entries ride in the journal's frames instead of being forced on their own ({@link
 * AuditCommitObserver}); these tests take from the audit files what a power loss could take (the
 * unforced bytes, in any order) and check that {@link AuditRepair} restores every entry from the
 * journal at the next start, and refuses what it cannot restore.
 */
class JournalAuditRepairTest {
  @TempDir Path root;
  private final MutableClock clock = MutableClock.create();
  private final List<AutoCloseable> open = new ArrayList<>();

  @AfterEach
  void tearDown() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
  }

  /** A store and its audit journals in {@code base}, opened the way the sidecar opens them. */
  private final class Node {
    final Path journalDir;
    final Path auditDir;
    final JournalExecutionStore store;
    final AuditJournals audit;
    final AuditRepair.Result repaired;

    Node(Path base, Compactor.Hooks hooks, List<String> events) {
      journalDir = base.resolve("journal");
      auditDir = base.resolve("audit");
      AuditRepair repair = AuditRepair.of(auditDir);
      store =
          JournalExecutionStore.open(
              JournalOptions.defaults(journalDir).withClock(clock),
              repair,
              ChannelFactory.DEFAULT,
              hooks);
      open.add(store);
      repaired = repair.finish();
      audit = AuditJournals.open(auditDir, AuditOptions.defaults().withClock(clock));
      open.add(audit);
      CommitObserver observer = AuditCommitObserver.of(audit);
      store.observe(
          events == null
              ? observer
              : JournalFixture.observer(
                  observer::applied,
                  observer::collect,
                  () -> {
                    events.add("audit forced");
                    observer.force();
                  }));
    }

    Node(Path base) {
      this(base, Compactor.Hooks.NONE, null);
    }

    /** {@code n} executions taken to completed; returns their last versions. */
    List<Execution> run(int n) {
      List<Execution> done = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        Execution e = JournalFixture.claim(store, clock);
        done.add(JournalFixture.reach(store, clock, e, ExecutionState.COMPLETED));
      }
      return done;
    }

    /**
     * A crash: the store stops writing at once and the audit journals are left as they are; the
     * files as they were at that instant are copied to {@code to} (what a disk that kept the page
     * cache would hold), then the audit journals here are closed.
     */
    Path crashInto(Path to) throws IOException {
      store.halt();
      copyTree(journalDir, to.resolve("journal"));
      copyTree(auditDir, to.resolve("audit"));
      audit.close();
      return to;
    }
  }

  private static void copyTree(Path from, Path to) throws IOException {
    Files.createDirectories(to);
    try (Stream<Path> files = Files.list(from)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        Files.copy(f, to.resolve(f.getFileName()));
      }
    }
  }

  private static byte[] activity(Path base) throws IOException {
    return Files.readAllBytes(base.resolve("audit").resolve(AuditFiles.ACTIVITY));
  }

  private static void truncate(Path file, long size) throws IOException {
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      f.setLength(size);
    }
  }

  private static void zero(Path file, long from, int length) throws IOException {
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      f.seek(from);
      f.write(new byte[length]);
    }
  }

  private static AuditVerification verify(Path auditDir) {
    return AuditVerifier.create().verify(auditDir, Optional.empty());
  }

  private static boolean hasEntry(byte[] activity, Execution e) {
    String text = new String(activity, StandardCharsets.UTF_8);
    return Arrays.stream(text.split("\n"))
        .anyMatch(
            l ->
                l.contains("\"execution\":\"" + e.id().value() + "\"")
                    && l.contains("\"version\":" + e.version())
                    && l.contains("\"state\":\"" + e.state().wireName() + "\""));
  }

  @Test
  void aFileThatLostEverythingUnforcedIsRewrittenFromTheJournal() throws IOException {
    Node first = new Node(root.resolve("a"));
    List<Execution> done = first.run(25);
    Path crashed = first.crashInto(root.resolve("b"));
    byte[] before = activity(crashed);
    Path file = crashed.resolve("audit").resolve(AuditFiles.ACTIVITY);
    truncate(file, 0); // nothing of it was forced

    Node second = new Node(crashed);

    assertThat(second.repaired.riders()).isPositive();
    assertThat(second.repaired.bytes()).isEqualTo(before.length);
    assertThat(second.repaired.restored()).isEqualTo(before.length);
    assertThat(second.repaired.describe(crashed)).contains(before.length + " bytes");
    byte[] after = activity(crashed);
    assertThat(Arrays.copyOf(after, before.length)).isEqualTo(before);
    for (Execution e : done) {
      assertThat(hasEntry(after, e)).as("entry of %s", e.id()).isTrue();
    }
    second.audit.close();
    AuditVerification v = verify(crashed.resolve("audit"));
    assertThat(v.outcome()).isEqualTo(AuditVerification.Outcome.OK);
    assertThat(v.bad()).isEmpty();
  }

  @Test
  void aPageLostInTheMiddleIsRewritten() throws IOException {
    Node first = new Node(root.resolve("a"));
    first.run(40);
    Path crashed = first.crashInto(root.resolve("b"));
    byte[] before = activity(crashed);
    Path file = crashed.resolve("audit").resolve(AuditFiles.ACTIVITY);
    zero(file, before.length / 3, 4096); // written back after the pages around it, then lost
    assertThat(verify(crashed.resolve("audit")).bad()).isNotEmpty();

    Node second = new Node(crashed);

    assertThat(second.repaired.restored()).isBetween(4096L, (long) before.length - 1);
    assertThat(Arrays.copyOf(activity(crashed), before.length)).isEqualTo(before);
    second.audit.close();
    assertThat(verify(crashed.resolve("audit")).outcome()).isEqualTo(AuditVerification.Outcome.OK);
  }

  /** After kill -9 the files kept everything: nothing is written, nothing is logged. */
  @Test
  void aCrashThatLostNothingRestoresNothing() throws IOException {
    Node first = new Node(root.resolve("a"));
    first.run(10);
    Path crashed = first.crashInto(root.resolve("b"));
    byte[] before = activity(crashed);

    Node second = new Node(crashed);

    assertThat(second.repaired.riders()).isPositive();
    assertThat(second.repaired.bytes()).isEqualTo(before.length);
    assertThat(second.repaired.restored()).isZero();
    assertThat(second.repaired.describe(crashed)).isNull();
  }

  @Test
  void aTornLastFrameLeavesTheAuditChainWhole() throws IOException {
    Node first = new Node(root.resolve("a"));
    first.run(10);
    Path crashed = first.crashInto(root.resolve("b"));
    // The last frame is torn: its records are gone, and its riders with them; the audit file
    // kept the entries of that group (written before the frame), which stay, chained.
    Path segment;
    try (Stream<Path> files = Files.list(crashed.resolve("journal"))) {
      segment =
          files
              .filter(p -> p.getFileName().toString().endsWith(".log"))
              .sorted()
              .reduce((a, b) -> b)
              .orElseThrow();
    }
    long end = JournalFixture.recordsEnd(segment);
    truncate(segment, end - 3);
    byte[] before = activity(crashed);

    Node second = new Node(crashed);

    assertThat(Arrays.copyOf(activity(crashed), before.length)).isEqualTo(before);
    second.run(3);
    second.audit.close();
    AuditVerification v = verify(crashed.resolve("audit"));
    assertThat(v.outcome()).isEqualTo(AuditVerification.Outcome.OK);
  }

  @Test
  void compactionForcesTheAuditFilesBeforeTheSegmentsWithTheirRidersGo() throws Exception {
    List<String> events = new CopyOnWriteArrayList<>();
    Node first = new Node(root.resolve("a"), step -> events.add(step.name()), events);
    first.run(10);
    first.store.compactNow().get();
    assertThat(events).contains("audit forced", "SNAPSHOT_RENAMED");
    assertThat(events.indexOf("audit forced")).isLessThan(events.indexOf("SNAPSHOT_RENAMED"));

    // The riders before the compaction are gone from the journal: a restart rewrites only later
    // ones, and a file that lacks bytes before them cannot be repaired.
    List<Execution> later = first.run(5);
    Path crashed = first.crashInto(root.resolve("b"));
    byte[] before = activity(crashed);
    Path file = crashed.resolve("audit").resolve(AuditFiles.ACTIVITY);
    Node second = new Node(crashed);
    assertThat(second.repaired.bytes()).isPositive().isLessThan(before.length);
    for (Execution e : later) {
      assertThat(hasEntry(activity(crashed), e)).isTrue();
    }
    second.store.close();
    second.audit.close();
    open.clear();

    long firstRider = before.length - second.repaired.bytes();
    Path again = root.resolve("c");
    copyTree(crashed.resolve("journal"), again.resolve("journal"));
    copyTree(crashed.resolve("audit"), again.resolve("audit"));
    truncate(again.resolve("audit").resolve(AuditFiles.ACTIVITY), firstRider - 10);
    assertThatThrownBy(() -> new Node(again))
        .isInstanceOfSatisfying(
            AuditException.class, e -> assertThat(e.code()).isEqualTo(AuditException.Code.CORRUPT))
        .hasMessageContaining(AuditFiles.ACTIVITY)
        .hasMessageContaining("ends at byte " + (firstRider - 10));
    // The refusal released the store: once the file is restored, it opens.
    Files.copy(
        file,
        again.resolve("audit").resolve(AuditFiles.ACTIVITY),
        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    Node third = new Node(again);
    assertThat(third.repaired.riders()).isPositive();
  }

  @Test
  void ridersOfAnAuditDirectoryBegunAnewAreSkipped() throws IOException {
    Node first = new Node(root.resolve("a"));
    first.run(10);
    Path crashed = first.crashInto(root.resolve("b"));
    try (Stream<Path> files = Files.list(crashed.resolve("audit"))) {
      for (Path f : (Iterable<Path>) files::iterator) {
        Files.delete(f);
      }
    }

    Node second = new Node(crashed);

    assertThat(second.repaired.riders()).isZero();
    assertThat(second.repaired.skipped()).isPositive();
    List<Execution> later = second.run(2);
    second.audit.close();
    assertThat(verify(crashed.resolve("audit")).outcome()).isEqualTo(AuditVerification.Outcome.OK);
    assertThat(hasEntry(activity(crashed), later.get(1))).isTrue();

    // Opened again, the old key's riders are still skipped and the new ones rewritten in place.
    second.store.close();
    Node third = new Node(crashed);
    assertThat(third.repaired.skipped()).isPositive();
    assertThat(third.repaired.riders()).isPositive();
    third.audit.close();
    assertThat(verify(crashed.resolve("audit")).outcome()).isEqualTo(AuditVerification.Outcome.OK);
  }
}
