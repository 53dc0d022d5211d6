package dev.tally.sidecar.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.sidecar.process.CountingUpstream.Receipt;
import dev.tally.sidecar.process.CountingUpstream.Script;
import dev.tally.sidecar.process.CrashRun.Call;
import dev.tally.sidecar.process.CrashRun.Crash;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kill -9} of a real {@code tally serve} process on the journal store at chosen points of a
 * write call, then a restart on the same journal and the agent's retry (ARCHITECTURE.md §5, §8): an
 * irreversible side effect happens at most once, a completed result is replayed, an unfinished call
 * is reported {@code OUTCOME_UNKNOWN} or, for a keyed tool, re-dispatched under the same execution
 * id. Each point runs at least {@code tally.crash.iterations} (default 20) times, with the kill at
 * a random instant inside its window; the seed ({@code tally.crash.seed}) is printed.
 */
class SidecarCrashIT {
  private static final int ITERATIONS = Integer.getInteger("tally.crash.iterations", 20);
  private static final long SEED = Long.getLong("tally.crash.seed", System.nanoTime());
  private static final Duration WAIT = Duration.ofSeconds(30);

  private static CountingUpstream upstream;
  private static McpClient client;

  /** JVM options of every sidecar process: the class-data archive, once it exists. */
  private static List<String> jvm = List.of();

  @TempDir static Path shared;
  @TempDir Path dir;

  @BeforeAll
  static void start() throws Exception {
    System.out.println("SidecarCrashIT: -Dtally.crash.seed=" + SEED);
    upstream = CountingUpstream.start();
    client = new McpClient();
    jvm = classDataArchive();
  }

  /**
   * Runs one sidecar through the calls the tests make and archives the classes it loaded (AppCDS),
   * so the hundred-odd processes that follow start in about half the time. Without an archive the
   * tests still run, only slower.
   */
  private static List<String> classDataArchive() throws Exception {
    long t0 = System.nanoTime();
    Path jsa = shared.resolve("tally.jsa");
    try (CrashRun run =
        new CrashRun(
            "cds",
            shared.resolve("cds"),
            upstream,
            client,
            List.of("-XX:ArchiveClassesAtExit=" + jsa))) {
      run.start();
      for (int i = 0; i < 4; i++) {
        Call c = run.call(i);
        for (int attempt = 0; attempt < 2; attempt++) {
          McpClient.Answer a =
              client.call(run.process().mcp(), run.rpcId(), c.tool(), c.title(), c.key(), WAIT);
          assertThat(a.isToolResult()).as(a.body()).isTrue();
        }
        run.state(upstream.receipts(c.title()).get(0).idempotencyKey());
      }
      run.process().terminate();
      assertThat(run.process().awaitExit(Duration.ofSeconds(60)))
          .as(run.process().output())
          .isZero();
    }
    boolean made = Files.isRegularFile(jsa);
    System.out.printf(
        java.util.Locale.ROOT,
        "SidecarCrashIT: class-data archive %s in %.1fs%n",
        made ? "made" : "not made (processes start without it)",
        (System.nanoTime() - t0) / 1e9);
    return made ? List.of("-XX:SharedArchiveFile=" + jsa) : List.of();
  }

  @AfterAll
  static void stop() throws Exception {
    client.close();
    upstream.close();
  }

  private static Random random(String point) {
    return new Random(SEED ^ point.hashCode());
  }

  /** Sleeps until {@code nanoTime} reaches {@code at}: the kill instant, not a synchronization. */
  private static void parkUntil(long at) {
    long left;
    while ((left = at - System.nanoTime()) > 0) {
      LockSupport.parkNanos(left);
    }
  }

  /**
   * Every other process waits 40 ms to fill each journal group: the same code path with a wider
   * window between a step and its durability, so that random kills land inside it often.
   */
  private static List<String> slowCommitsOnEvenIterations(int i) {
    return i % 2 == 0 ? List.of("TALLY_JOURNAL_MAX_GROUP_DELAY=40ms") : List.of();
  }

  /** Latencies of one ordinary call on the warm process, to place kills inside a window. */
  private record Warm(long sendToReceipt, long answerToClient) {}

  private static Warm warm(CrashRun run, int i) throws Exception {
    Call c = run.warmUp(i);
    McpClient.Exchange x = run.send(c);
    McpClient.Answer a = x.await(WAIT);
    assertThat(a).as("warm-up call on %s", run.process()).isNotNull();
    assertThat(a.isToolResult()).as(a.body()).isTrue();
    Receipt r = upstream.receipts(c.title()).get(0);
    long answered = upstream.answered(c.title()).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    return new Warm(
        Math.max(100_000, r.atNanos() - x.sentAtNanos),
        Math.max(100_000, x.answeredAtNanos - answered));
  }

  /** What one iteration does up to and including the kill. */
  @FunctionalInterface
  private interface Attempt {
    Crash crash(CrashRun run, Call call, Warm warm, Random rnd) throws Exception;
  }

  /**
   * Runs iterations until {@link #ITERATIONS} of them hit the window ({@code isHit}), failing after
   * {@code maxIterations}: the attempt (ending in a kill), restart, retry and checks. Attempts that
   * place the kill relative to measured latencies get a warm-up call first ({@code jvmFor}
   * non-null; {@code jvmFor.apply(i)} are the JVM options of the process that runs attempt i).
   */
  private void run(
      String point,
      int maxIterations,
      IntFunction<List<String>> jvmFor,
      Attempt attempt,
      java.util.function.Predicate<Crash> isHit)
      throws Exception {
    run(point, maxIterations, jvmFor, attempt, isHit, how -> true);
  }

  /** {@code allowed}: which settlements (as {@link CrashRun#verify} names them) may occur. */
  private void run(
      String point,
      int maxIterations,
      IntFunction<List<String>> jvmFor,
      Attempt attempt,
      java.util.function.Predicate<Crash> isHit,
      java.util.function.Predicate<String> allowed)
      throws Exception {
    int hits = ITERATIONS;
    boolean warmUp = jvmFor != null;
    if (jvmFor == null) {
      jvmFor = i -> List.of();
    }
    Random rnd = random(point);
    try (CrashRun run = new CrashRun(point, dir.resolve(point), upstream, client, jvm)) {
      run.start(jvmFor.apply(0));
      int hit = 0;
      int i = 0;
      for (; hit < hits; i++) {
        assertThat(i)
            .as("%s: only %d of %d iterations hit the window", point, hit, i)
            .isLessThan(maxIterations);
        Warm warm = warmUp ? warm(run, i) : null;
        Crash crash = attempt.crash(run, run.call(i), warm, rnd);
        boolean h = isHit.test(crash);
        hit += h ? 1 : 0;
        run.start(jvmFor.apply(i + 1));
        String how = run.verify(crash);
        assertThat(how).as("%s, iteration %d: settled as", point, i).matches(allowed);
        run.count((h ? "" : "(outside window) ") + how);
      }
      for (Call c : run.calls()) {
        run.checkAtMostOnce(c);
      }
      System.out.println(run.summary() + "; " + hit + " hits in " + i + " iterations");
      System.out.println("  audit: " + CrashFindings.audit(run, upstream));
      System.out.println("  stderr: " + CrashFindings.stderr(run.dir));
    }
  }

  @Test
  void killBeforeTheDispatchIsDurableLeavesNothingOrAnUnknownOutcome() throws Exception {
    run(
        "a",
        ITERATIONS * 4,
        SidecarCrashIT::slowCommitsOnEvenIterations,
        (run, call, warm, rnd) -> {
          McpClient.Exchange x = run.send(call);
          parkUntil(x.sentAtNanos + (long) (rnd.nextDouble() * warm.sendToReceipt()));
          run.kill();
          return run.crashed(call, x.await(WAIT));
        },
        crash -> crash.seen().isEmpty());
  }

  @Test
  void killWhileTheUpstreamHoldsTheCallNeverRepeatsAnIrreversibleEffect() throws Exception {
    run(
        "b",
        ITERATIONS,
        null,
        (run, call, warm, rnd) -> {
          upstream.script(call.title(), Script.HOLD);
          McpClient.Exchange x = run.send(call);
          Receipt r = upstream.received(call.title()).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
          parkUntil(r.atNanos() + TimeUnit.MICROSECONDS.toNanos(rnd.nextInt(30_000)));
          try {
            run.kill();
          } finally {
            upstream.release(call.title());
          }
          return run.crashed(call, x.await(WAIT));
        },
        crash -> crash.original() == null && !crash.seen().isEmpty());
  }

  @Test
  void killAfterTheUpstreamAnsweredBeforeTheAgentGotItReplaysOrReportsUnknown() throws Exception {
    run(
        "c",
        ITERATIONS * 4,
        SidecarCrashIT::slowCommitsOnEvenIterations,
        (run, call, warm, rnd) -> {
          McpClient.Exchange x = run.send(call);
          long answered =
              upstream.answered(call.title()).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
          parkUntil(answered + (long) (rnd.nextDouble() * warm.answerToClient()));
          run.kill();
          return run.crashed(call, x.await(WAIT));
        },
        crash -> crash.original() == null && !crash.seen().isEmpty());
  }

  @Test
  void killAfterTheResultIsRecordedReplaysIt() throws Exception {
    run(
        "d",
        ITERATIONS,
        null,
        (run, call, warm, rnd) -> {
          upstream.script(call.title(), Script.HOLD);
          McpClient.Exchange x = run.send(call);
          Receipt r = upstream.received(call.title()).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
          boolean drop = rnd.nextBoolean();
          if (drop) {
            x.abort();
          }
          upstream.release(call.title());
          run.awaitResult(r.idempotencyKey());
          parkUntil(System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(rnd.nextInt(20_000)));
          run.kill();
          return run.crashed(call, drop ? null : x.await(WAIT));
        },
        crash -> !crash.seen().isEmpty(),
        // The result was durable before the kill: a retry must get it back, never an unknown
        // outcome or a second dispatch.
        how ->
            how.equals("replayed")
                || how.equals("answered before the kill")
                || how.equals("answered before the kill, replayed"));
  }

  /** Returns once a compaction file is in flight in {@code journal}, or after {@code max}. */
  private static void awaitCompactionInFlight(Path journal, Duration max) throws IOException {
    long end = System.nanoTime() + max.toNanos();
    while (System.nanoTime() - end < 0) {
      if (!CrashFindings.compactionInFlight(journal)
          .equals(CrashFindings.NO_COMPACTION_IN_FLIGHT)) {
        return;
      }
      java.util.concurrent.locks.LockSupport.parkNanos(100_000);
    }
  }

  @Test
  void killDuringCompactionLosesNoRecordedResult() throws Exception {
    String point = "e";
    Random rnd = random(point);
    List<String> compacting = new ArrayList<>(jvm);
    compacting.add("TALLY_JOURNAL_COMPACT_MIN_BYTES=0");
    compacting.add("TALLY_JOURNAL_COMPACT_RATIO=1");
    TreeMap<String, Integer> evidence = new TreeMap<>();
    List<Crash> answered = new ArrayList<>();
    ExecutorService senders = Executors.newFixedThreadPool(4);
    upstream.padResults(16 * 1024);
    try (CrashRun run = new CrashRun(point, dir.resolve(point), upstream, client, compacting)) {
      run.start();
      int[] next = {0};
      for (int i = 0; i < ITERATIONS; i++) {
        List<Crash> burst = Collections.synchronizedList(new ArrayList<>());
        List<Future<?>> running = new ArrayList<>();
        for (int s = 0; s < 4; s++) {
          running.add(
              senders.submit(
                  () -> {
                    while (true) {
                      Call c;
                      synchronized (next) {
                        c = run.call(next[0]++);
                      }
                      McpClient.Exchange x;
                      try {
                        x = run.send(c);
                      } catch (IOException e) {
                        return null; // the process is gone: this call was never sent
                      }
                      McpClient.Answer a = x.await(WAIT);
                      burst.add(new Crash(c, a, List.of()));
                      if (a == null) {
                        return null;
                      }
                    }
                  }));
        }
        long at = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20 + rnd.nextInt(300));
        if (i % 2 == 0) {
          // Every other kill lands while a compaction file is in flight (a snapshot being written,
          // or replaced files not yet deleted), found by watching the journal directory; a random
          // instant alone rarely hits that window.
          parkUntil(at);
          awaitCompactionInFlight(run.journal(), Duration.ofSeconds(1));
        } else {
          parkUntil(at);
        }
        run.kill();
        for (Future<?> f : running) {
          f.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        }
        evidence.merge(CrashFindings.compactionInFlight(run.journal()), 1, Integer::sum);
        run.start();
        for (Crash c : burst) {
          Crash seen = run.crashed(c.call(), c.original());
          run.count(run.verify(seen));
          if (c.original() != null && c.call().key() != null) {
            answered.add(seen);
          }
        }
        // Everything answered in earlier lives of the journal is still replayed.
        for (int k = 0; k < 5 && !answered.isEmpty(); k++) {
          Crash old = answered.get(rnd.nextInt(answered.size()));
          McpClient.Answer r =
              client.call(
                  run.process().mcp(),
                  run.rpcId(),
                  old.call().tool(),
                  old.call().title(),
                  old.call().key(),
                  WAIT);
          assertThat(r.replay().isMissingNode()).as("%s: %s", old.call(), r.body()).isFalse();
          assertThat(r.ticket()).isEqualTo(old.original().ticket());
        }
      }
      for (Call c : run.calls()) {
        run.checkAtMostOnce(c);
      }
      assertThat(CrashFindings.snapshots(run.journal()))
          .as("compaction ran (snapshots exist)")
          .isNotEmpty();
      assertThat(ITERATIONS - evidence.getOrDefault(CrashFindings.NO_COMPACTION_IN_FLIGHT, 0))
          .as("kills that landed mid-compaction: %s", evidence)
          .isGreaterThanOrEqualTo(ITERATIONS / 4);
      System.out.println(
          run.summary()
              + "; journal files at the kills: "
              + evidence
              + "; "
              + answered.size()
              + " answered calls re-checked");
      System.out.println("  audit: " + CrashFindings.audit(run, upstream));
      System.out.println("  stderr: " + CrashFindings.stderr(run.dir));
    } finally {
      upstream.padResults(0);
      senders.shutdownNow();
    }
  }
}
