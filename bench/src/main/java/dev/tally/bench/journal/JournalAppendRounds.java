package dev.tally.bench.journal;

import com.sun.management.OperatingSystemMXBean;
import dev.tally.core.audit.AuditCommitObserver;
import dev.tally.core.audit.AuditJournals;
import dev.tally.core.audit.AuditOptions;
import dev.tally.core.contract.ToolClass;
import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.execution.Lease;
import dev.tally.core.execution.MatchKind;
import dev.tally.core.execution.Transition;
import dev.tally.core.store.ExecutionStore;
import dev.tally.core.store.journal.JournalExecutionStore;
import dev.tally.core.store.journal.JournalOptions;
import dev.tally.core.store.journal.JournalStats;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * The journal store's append path in one JVM, without HTTP: {@code clients} threads each drive
 * executions through claim, authorized, dispatched and completed (with a result), as the gate does,
 * against the memory store, the journal store, and the journal store with its audit trail.
 * Contenders are interleaved in rounds after a warm-up (/work/shared/PERFORMANCE.md); the output is
 * the median [min-max] of the per-round ratios against the memory store, process CPU per execution,
 * fsyncs/s and records per fsync.
 *
 * <p>{@code java -cp bench/target/tally-bench.jar dev.tally.bench.journal.JournalAppendRounds
 * [rounds] [secondsPerRound] [clients] [dir]}
 */
public final class JournalAppendRounds {
  private static final OperatingSystemMXBean OS =
      (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
  private static final byte[] RESULT =
      ("{\"content\":[{\"type\":\"text\",\"text\":\"" + "x".repeat(160) + "\"}]}")
          .getBytes(StandardCharsets.UTF_8);

  private JournalAppendRounds() {}

  private record Contender(String name, ExecutionStore store, JournalExecutionStore journal) {}

  private record Sample(
      double perSecond, double cpuMicrosPerOp, double fsyncsPerSecond, double recordsPerFsync) {}

  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    int clients = args.length > 2 ? Integer.parseInt(args[2]) : 64;
    Path dir =
        args.length > 3 ? Path.of(args[3]) : Files.createTempDirectory("tally-journal-bench");
    Clock clock = Clock.systemUTC();
    JournalExecutionStore plain =
        JournalExecutionStore.open(JournalOptions.defaults(dir.resolve("plain")).withClock(clock));
    JournalExecutionStore audited =
        JournalExecutionStore.open(
            JournalOptions.defaults(dir.resolve("journal")).withClock(clock));
    AuditJournals audit =
        AuditJournals.open(dir.resolve("audit"), AuditOptions.defaults().withClock(clock));
    audited.observe(AuditCommitObserver.of(audit));
    List<Contender> contenders =
        List.of(
            new Contender("journal", plain, plain),
            new Contender("journal+audit", audited, audited));
    try {
      for (Contender c : contenders) {
        run(c, clients, Math.max(2, seconds));
      }
      Sample[][] samples = new Sample[contenders.size()][rounds];
      for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < contenders.size(); i++) {
          samples[i][r] = run(contenders.get(i), clients, seconds);
        }
      }
      System.out.printf(
          Locale.ROOT,
          "%d clients, %d rounds x %d s; medians [min-max] of per-round values%n",
          clients,
          rounds,
          seconds);
      for (int i = 0; i < contenders.size(); i++) {
        double[] ratio = new double[rounds];
        double[] cpu = new double[rounds];
        double[] fsyncs = new double[rounds];
        double[] perFsync = new double[rounds];
        for (int r = 0; r < rounds; r++) {
          ratio[r] = samples[i][r].perSecond() / samples[0][r].perSecond();
          cpu[r] = samples[i][r].cpuMicrosPerOp() / samples[0][r].cpuMicrosPerOp();
          fsyncs[r] = samples[i][r].fsyncsPerSecond();
          perFsync[r] = samples[i][r].recordsPerFsync();
        }
        System.out.printf(
            Locale.ROOT,
            "%-14s throughput vs journal %s   CPU/execution vs journal %s   fsyncs/s %s   records/fsync"
                + " %s%n",
            contenders.get(i).name(),
            summary(ratio, "%.2f"),
            summary(cpu, "%.2f"),
            summary(fsyncs, "%.0f"),
            summary(perFsync, "%.1f"));
      }
    } finally {
      plain.close();
      audited.close();
      audit.close();
    }
  }

  private static Sample run(Contender c, int clients, int seconds) throws InterruptedException {
    AtomicBoolean stop = new AtomicBoolean();
    LongAdder done = new LongAdder();
    CountDownLatch finished = new CountDownLatch(clients);
    JournalStats before = c.journal() == null ? null : c.journal().stats();
    long cpu0 = OS.getProcessCpuTime();
    long t0 = System.nanoTime();
    for (int i = 0; i < clients; i++) {
      Thread t =
          new Thread(
              () -> {
                try {
                  while (!stop.get()) {
                    execute(c.store());
                    done.increment();
                  }
                } finally {
                  finished.countDown();
                }
              });
      t.setDaemon(true);
      t.start();
    }
    Thread.sleep(seconds * 1000L);
    stop.set(true);
    finished.await();
    double elapsed = (System.nanoTime() - t0) / 1e9;
    long cpu = OS.getProcessCpuTime() - cpu0;
    long n = Math.max(1, done.sum());
    double fsyncs = 0;
    double perFsync = 0;
    if (before != null) {
      JournalStats after = c.journal().stats();
      long f = after.fsyncs() - before.fsyncs();
      fsyncs = f / elapsed;
      perFsync = f == 0 ? 0 : (after.recordsWritten() - before.recordsWritten()) / (double) f;
    }
    return new Sample(n / elapsed, cpu / 1e3 / n, fsyncs, perFsync);
  }

  /** One execution as the gate drives it: four durable changes, the last one with a result. */
  private static void execute(ExecutionStore store) {
    Instant now = Instant.now();
    Execution e = store.claim(candidate(now), now).toCompletableFuture().join().execution();
    e =
        store
            .transition(Transition.to(e, ExecutionState.AUTHORIZED, now))
            .toCompletableFuture()
            .join();
    e =
        store
            .transition(
                Transition.to(e, ExecutionState.DISPATCHED, now)
                    .withLease(new Lease("sidecar-1", now.plusSeconds(30))))
            .toCompletableFuture()
            .join();
    store
        .transition(
            Transition.to(e, ExecutionState.COMPLETED, Instant.now())
                .withOutcome(200, null)
                .withResult(RESULT, false)
                .clearingLease())
        .toCompletableFuture()
        .join();
  }

  private static Execution candidate(Instant now) {
    EnumMap<ExecutionState, Instant> timeline = new EnumMap<>(ExecutionState.class);
    timeline.put(ExecutionState.ACCEPTED, now);
    return new Execution(
        ExecutionId.generate(Clock.systemUTC()),
        1,
        "idem:actor:bench:" + UUID.randomUUID(),
        MatchKind.IDEMPOTENCY_KEY,
        "actor:bench",
        "create_ticket",
        ToolClass.IRREVERSIBLE,
        "hmac-sha256:k1:" + "ab".repeat(32),
        Execution.WINDOW_SCOPE,
        ExecutionState.ACCEPTED,
        timeline,
        now.plus(Duration.ofMinutes(10)),
        now.plus(Duration.ofHours(24)),
        null,
        null,
        null,
        null,
        false,
        "{title:string}");
  }

  private static String summary(double[] v, String format) {
    double[] s = v.clone();
    Arrays.sort(s);
    double median =
        s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    return String.format(
        Locale.ROOT, format + " [" + format + "-" + format + "]", median, s[0], s[s.length - 1]);
  }
}
