package dev.tally.bench.audit;

import dev.tally.core.audit.AuditJournals;
import dev.tally.core.audit.AuditOptions;
import dev.tally.core.audit.SessionRef;
import dev.tally.core.contract.ToolClass;
import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.execution.Lease;
import dev.tally.core.execution.MatchKind;
import dev.tally.core.execution.Transition;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

/**
 * The CPU cost of one activity entry: {@link AuditJournals#transition} of prepared executions
 * (accepted, authorized, dispatched with a lease, completed with a result: what the gate reports
 * for one tool call), measured as thread CPU time per entry with nothing flushed during a round.
 * Two contenders in interleaved rounds after a warm-up (/work/shared/PERFORMANCE.md): {@code
 * entries} with checkpoints out of the way, {@code +checkpoints} with the default checkpoint every
 * 1000 entries (one Ed25519 signature each). Each round's entries are flushed after its clock
 * stopped.
 *
 * <p>{@code java -cp bench/target/tally-bench.jar dev.tally.bench.audit.AuditAppendRounds [rounds]
 * [entriesPerRound] [warmupRounds] [dir]}
 */
public final class AuditAppendRounds {
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
  private static final byte[] RESULT =
      ("{\"content\":[{\"type\":\"text\",\"text\":\"" + "x".repeat(160) + "\"}]}")
          .getBytes(StandardCharsets.UTF_8);
  private static final int EXECUTIONS = 1024;

  private AuditAppendRounds() {}

  private record Step(Execution before, Execution after, SessionRef session) {}

  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 15;
    int perRound = args.length > 1 ? Integer.parseInt(args[1]) : 20_000;
    int warmup = args.length > 2 ? Integer.parseInt(args[2]) : 15;
    Path dir = args.length > 3 ? Path.of(args[3]) : Files.createTempDirectory("tally-audit-bench");
    List<Step> steps = steps(Instant.now());
    AuditOptions base =
        AuditOptions.defaults()
            .withClock(Clock.systemUTC())
            .withTarget("billing-api")
            .withMaxPendingBytes(Integer.MAX_VALUE);
    List<String> names = List.of("entries", "+checkpoints");
    List<AuditJournals> sinks =
        List.of(
            AuditJournals.open(
                dir.resolve("entries"),
                base.withCheckpointEvery(Integer.MAX_VALUE)
                    .withCheckpointInterval(Duration.ofDays(365))),
            AuditJournals.open(dir.resolve("checkpoints"), base));
    try {
      int[] next = new int[sinks.size()];
      for (int r = 0; r < warmup; r++) {
        for (int s = 0; s < sinks.size(); s++) {
          round(sinks.get(s), steps, next, s, perRound);
        }
      }
      double[][] nanos = new double[sinks.size()][rounds];
      for (int r = 0; r < rounds; r++) {
        for (int s = 0; s < sinks.size(); s++) {
          nanos[s][r] = round(sinks.get(s), steps, next, s, perRound);
        }
      }
      System.out.printf(
          Locale.ROOT,
          "%d rounds x %d activity entries after %d warm-up rounds; CPU ns per entry%n",
          rounds,
          perRound,
          warmup);
      for (int s = 0; s < sinks.size(); s++) {
        System.out.printf(
            Locale.ROOT,
            "%-13s median %6.0f  [%.0f-%.0f]%n",
            names.get(s),
            median(nanos[s]),
            Arrays.stream(nanos[s]).min().orElseThrow(),
            Arrays.stream(nanos[s]).max().orElseThrow());
      }
    } finally {
      for (AuditJournals j : sinks) {
        j.close();
      }
    }
  }

  /** Appends {@code n} entries and returns the thread CPU ns per entry; flushes untimed. */
  private static double round(AuditJournals j, List<Step> steps, int[] next, int sink, int n) {
    int i = next[sink];
    long start = THREADS.getCurrentThreadCpuTime();
    for (int k = 0; k < n; k++) {
      Step s = steps.get(i);
      j.transition(s.before(), s.after(), s.session());
      i = i + 1 == steps.size() ? 0 : i + 1;
    }
    long cpu = THREADS.getCurrentThreadCpuTime() - start;
    next[sink] = i;
    j.flush();
    return cpu / (double) n;
  }

  /** Four recorded transitions per execution, as the gate reports a successful tool call. */
  private static List<Step> steps(Instant t0) {
    Random random = new Random(7);
    List<Step> out = new ArrayList<>(4 * EXECUTIONS);
    for (int x = 0; x < EXECUTIONS; x++) {
      Instant at = t0.plusMillis(x);
      SessionRef session = SessionRef.mcpSession("session-" + (x % 16));
      Execution accepted =
          new Execution(
              ExecutionId.generate(InstantSource.fixed(at), random),
              1,
              "fp:hmac-sha256:k1:" + Long.toHexString(random.nextLong()),
              MatchKind.FINGERPRINT,
              "agent-" + (x % 8) + "@example.com",
              "create_ticket",
              ToolClass.IRREVERSIBLE,
              "hmac-sha256:k1:" + Long.toHexString(random.nextLong()) + "0123456789abcdef",
              Execution.WINDOW_SCOPE,
              ExecutionState.ACCEPTED,
              Map.of(ExecutionState.ACCEPTED, at),
              at.plus(Duration.ofMinutes(10)),
              at.plus(Duration.ofDays(1)),
              null,
              null,
              null,
              null,
              false,
              "{title:string,priority:number,labels:[string]}");
      Execution authorized =
          accepted.apply(Transition.to(accepted, ExecutionState.AUTHORIZED, at.plusMillis(1)));
      Execution dispatched =
          authorized.apply(
              Transition.to(authorized, ExecutionState.DISPATCHED, at.plusMillis(2))
                  .withLease(new Lease("sidecar-1", at.plusSeconds(30))));
      Execution completed =
          dispatched.apply(
              Transition.to(dispatched, ExecutionState.COMPLETED, at.plusMillis(180))
                  .withOutcome(200, null)
                  .withResult(RESULT, false)
                  .clearingLease());
      out.add(new Step(null, accepted, session));
      out.add(new Step(accepted, authorized, session));
      out.add(new Step(authorized, dispatched, session));
      out.add(new Step(dispatched, completed, session));
    }
    return out;
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }
}
