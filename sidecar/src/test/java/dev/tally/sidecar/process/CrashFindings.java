package dev.tally.sidecar.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.core.audit.AuditTimeline;
import dev.tally.core.audit.AuditVerification;
import dev.tally.core.audit.AuditVerifier;
import dev.tally.sidecar.process.CountingUpstream.Receipt;
import dev.tally.sidecar.process.CrashRun.Call;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;

/** What the files a crash run left behind say: audit journals, journal files, stderr. */
final class CrashFindings {
  private CrashFindings() {}

  /**
   * Stops the run's last process and checks the audit journals its processes wrote beside the
   * journal (ARCHITECTURE.md §9): after any number of kills the hash chain is intact (entries after
   * the last signed checkpoint, or a torn last line, are what a crash leaves), and every execution
   * a restart recorded as outcome_unknown has that transition in the activity journal. Returns a
   * summary, with how many executions that reached the upstream the activity journal knows.
   */
  static String audit(CrashRun run, CountingUpstream upstream) throws Exception {
    run.stop();
    Path dir = run.dir.resolve("journal").resolve("audit");
    AuditVerification v = AuditVerifier.create().verify(dir, Optional.empty());
    assertThat(v.exitCode(true)).as("tally audit verify --allow-tail: %s", v.message()).isZero();
    List<String> settled = run.settledByRestart();
    for (String id : settled) {
      assertThat(AuditTimeline.render(dir, Optional.of(id)))
          .as("the audit trail records the restart's outcome_unknown of %s", id)
          .containsPattern("(?m)^\\s+\\S+\\s+outcome_unknown\\b");
    }
    String listing = AuditTimeline.render(dir, Optional.empty());
    long sent = 0;
    long audited = 0;
    for (Call c : run.calls()) {
      List<Receipt> r = upstream.receipts(c.title());
      if (!r.isEmpty()) {
        sent++;
        audited += listing.contains(r.get(0).idempotencyKey()) ? 1 : 0;
      }
    }
    return String.format(
        Locale.ROOT,
        "%s; %d restart-settled executions audited; %d of %d executions that reached the"
            + " upstream appear in the activity journal",
        v.message(),
        settled.size(),
        audited,
        sent);
  }

  /**
   * What the processes of a run wrote to stderr, with paths, ids and numbers blanked so that
   * repeated lines collapse; with counts.
   */
  static Map<String, Integer> stderr(Path dir) throws IOException {
    Map<String, Integer> lines = new TreeMap<>();
    List<Path> files;
    try (Stream<Path> s = Files.list(dir)) {
      files = s.filter(p -> p.toString().endsWith(".err")).toList();
    }
    for (Path f : files) {
      for (String line : Files.readAllLines(f)) {
        String norm =
            line.replace(dir.toString(), "DIR")
                .replaceAll("act_[0-9A-Z]{26}", "act_ID")
                .replaceAll("\\d+", "N")
                .strip();
        if (!norm.isEmpty()) {
          lines.merge(norm, 1, Integer::sum);
        }
      }
    }
    return lines;
  }

  /** What the files in a journal directory say about a compaction a kill interrupted. */
  static final String NO_COMPACTION_IN_FLIGHT = "no compaction file in flight";

  static String compactionInFlight(Path journal) throws IOException {
    List<String> names = names(journal);
    if (names.stream().anyMatch(n -> n.endsWith(".tmp"))) {
      return "snapshot being written";
    }
    List<Long> snaps = seqs(names, "snapshot-", ".snap");
    List<Long> segs = seqs(names, "journal-", ".log");
    if (snaps.size() > 1
        || !snaps.isEmpty() && segs.stream().anyMatch(s -> s <= snaps.get(snaps.size() - 1))) {
      return "replaced files not yet deleted";
    }
    return NO_COMPACTION_IN_FLIGHT;
  }

  /** Sequence numbers of the snapshots in a journal directory. */
  static List<Long> snapshots(Path journal) throws IOException {
    return seqs(names(journal), "snapshot-", ".snap");
  }

  private static List<String> names(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  private static List<Long> seqs(List<String> names, String prefix, String suffix) {
    return names.stream()
        .filter(n -> n.startsWith(prefix) && n.endsWith(suffix))
        .map(n -> Long.parseLong(n.substring(prefix.length(), n.length() - suffix.length())))
        .sorted()
        .toList();
  }
}
