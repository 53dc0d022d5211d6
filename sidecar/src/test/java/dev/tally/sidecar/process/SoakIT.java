package dev.tally.sidecar.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tally.sidecar.process.CountingUpstream.Script;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Soak (issue 21): mixed traffic against one {@code tally serve} process at -Xmx128m for {@code
 * -Dsoak.minutes=N} minutes (skipped without it): calls answered at once, calls whose client resets
 * the connection while the upstream is still working, slowloris heads, bodies that stall, declared
 * lengths never sent. Every {@code soak.sampleSeconds} (default 15) it forces a GC in the sidecar
 * and samples heap used, open file descriptors, connections and the executions the store keeps; it
 * fails if, after the first quarter (warm-up), heap or descriptors grow. Executions are retained
 * {@link #RETENTION} (attach window 1m) so that the retained set is steady after the warm-up: the
 * journal store keeps every execution in heap for its retention (issue 20), which at the default 24
 * h grows with the call count, not a leak. The report goes to {@code target/soak-report.md}.
 *
 * <p>{@code ./mvnw -B -ntp -pl sidecar -am verify -Dtest=NONE
 * -Dsurefire.failIfNoSpecifiedTests=false -Dit.test=SoakIT -Dsoak.minutes=30}
 */
class SoakIT {
  private static final Duration WAIT = Duration.ofSeconds(30);
  @TempDir Path dir;

  /**
   * Retention of the soak's executions: short, so that the executions the store must keep reach a
   * steady state within the warm-up and any growth after it is not the retained set.
   */
  static final String RETENTION = "2m";

  /**
   * One sample; {@code fdKinds} counts the open descriptors by what they point at (a file's path
   * with its digits as {@code #}, {@code socket}, {@code pipe}, ...), to name what a growth is.
   */
  private record Sample(
      long second,
      long heapKib,
      long fds,
      long connections,
      long calls,
      long retained,
      Map<String, Long> fdKinds) {}

  @Test
  void mixedTrafficWithDisconnectsAndSlowClientsDoesNotGrow() throws Exception {
    double minutes = Double.parseDouble(System.getProperty("soak.minutes", "0"));
    assumeTrue(minutes > 0, "set -Dsoak.minutes=N to run the soak");
    long sampleSeconds = Long.getLong("soak.sampleSeconds", 15);
    try (Harness h = new Harness(dir)) {
      AtomicLong calls = new AtomicLong();
      AtomicLong failures = new AtomicLong();
      long end = System.nanoTime() + (long) (minutes * 60e9);
      ExecutorService pool = Executors.newFixedThreadPool(6);
      for (int w = 0; w < 6; w++) {
        int worker = w;
        pool.execute(
            () -> {
              long i = 0;
              while (System.nanoTime() < end) {
                try {
                  h.traffic(worker, i++, calls);
                } catch (Exception | AssertionError e) {
                  failures.incrementAndGet();
                }
              }
            });
      }
      List<Sample> samples = new ArrayList<>();
      Instant start = Instant.now();
      while (System.nanoTime() < end) {
        samples.add(h.sample(Duration.between(start, Instant.now()).toSeconds(), calls.get()));
        TimeUnit.SECONDS.sleep(sampleSeconds); // the sampling period, not a synchronization
      }
      pool.shutdown();
      assertThat(pool.awaitTermination(2, TimeUnit.MINUTES)).isTrue();
      samples.add(h.sample(Duration.between(start, Instant.now()).toSeconds(), calls.get()));
      String verdict = verdict(samples) + fdGrowth(samples);
      Path report = Path.of("target", "soak-report.md");
      Files.writeString(report, report(minutes, sampleSeconds, samples, failures.get(), verdict));
      assertThat(h.tally.isAlive()).isTrue();
      assertThat(h.tally.output()).doesNotContain("OutOfMemoryError");
      assertThat(verdict).as(Files.readString(report)).startsWith("PASS");
    }
  }

  private static String verdict(List<Sample> s) {
    if (s.size() < 4) {
      return "PASS (too few samples to judge growth)";
    }
    List<Sample> warm = s.subList(s.size() / 4, s.size());
    int q = Math.max(1, warm.size() / 3);
    long heapFirst = median(warm.subList(0, q).stream().mapToLong(Sample::heapKib).toArray());
    long heapLast =
        median(
            warm.subList(warm.size() - q, warm.size()).stream()
                .mapToLong(Sample::heapKib)
                .toArray());
    long fdFirst = median(warm.subList(0, q).stream().mapToLong(Sample::fds).toArray());
    long fdLast =
        median(
            warm.subList(warm.size() - q, warm.size()).stream().mapToLong(Sample::fds).toArray());
    boolean heapGrew = heapLast > heapFirst * 3 / 2 + 8 * 1024;
    boolean fdsGrew = fdLast > fdFirst + 32;
    String numbers =
        "heap after GC (median KiB, first vs last third after warm-up) "
            + heapFirst
            + " -> "
            + heapLast
            + "; fds "
            + fdFirst
            + " -> "
            + fdLast;
    return (heapGrew || fdsGrew ? "FAIL: " : "PASS: ") + numbers;
  }

  /**
   * The kinds of descriptors whose count changed between the end of the warm-up and the last sample
   * under traffic, e.g. {@code "; descriptors +3 journal/segment-#.log"}; empty when none.
   */
  private static String fdGrowth(List<Sample> s) {
    if (s.size() < 4) {
      return "";
    }
    Map<String, Long> from = s.get(s.size() / 4).fdKinds();
    Map<String, Long> to = s.get(s.size() - 2).fdKinds();
    java.util.TreeSet<String> kinds = new java.util.TreeSet<>(from.keySet());
    kinds.addAll(to.keySet());
    StringBuilder b = new StringBuilder();
    for (String k : kinds) {
      long d = to.getOrDefault(k, 0L) - from.getOrDefault(k, 0L);
      if (d != 0) {
        b.append(b.length() == 0 ? "; descriptors after the warm-up: " : ", ");
        b.append(d > 0 ? "+" : "").append(d).append(' ').append(k);
      }
    }
    return b.toString();
  }

  private static long median(long[] v) {
    java.util.Arrays.sort(v);
    return v[v.length / 2];
  }

  private static String report(
      double minutes, long every, List<Sample> samples, long failures, String verdict) {
    StringBuilder b = new StringBuilder();
    b.append("# Soak: mixed traffic, disconnects and slow clients\n\n");
    b.append("- length: ").append(minutes).append(" min, a sample every ").append(every);
    b.append(" s (after a forced GC in the sidecar)\n");
    b.append("- sidecar: `tally serve`, -Xmx128m, journal store, client limits as in the test,");
    b.append(" results and keys retained ").append(RETENTION).append(" (attach window 1m)\n");
    b.append("- traffic: 6 workers; per round a call answered at once, a call reset by its client");
    b.append(" while the upstream works (200 ms), a slowloris head, a stalled body, a declared");
    b.append(" 4 MB body never sent\n");
    b.append("- client-side errors counted (expected for resets and refusals): ").append(failures);
    b.append("\n- verdict: ").append(verdict).append("\n\n");
    b.append("| s | heap used KiB | fds | MCP connections | calls | executions kept |\n");
    b.append("|---|---|---|---|---|---|\n");
    for (Sample s : samples) {
      b.append("| ")
          .append(s.second())
          .append(" | ")
          .append(s.heapKib())
          .append(" | ")
          .append(s.fds())
          .append(" | ")
          .append(s.connections())
          .append(" | ")
          .append(s.calls())
          .append(" | ")
          .append(s.retained())
          .append(" |\n");
    }
    return b.toString();
  }

  /** The sidecar, its upstream and one client. */
  private static final class Harness implements AutoCloseable {
    final CountingUpstream upstream;
    final McpClient agent;
    final TallyProcess tally;
    final Path dir;

    Harness(Path dir) throws Exception {
      this.dir = dir.toRealPath();
      upstream = CountingUpstream.start();
      agent = new McpClient();
      Path config = dir.resolve("tally.yaml");
      Files.writeString(
          config,
          "upstream:\n  url: "
              + upstream.url()
              + "\nstore: journal:"
              + dir.resolve("journal")
              + "\nsidecar:\n  headerTimeout: 2s\n  idleTimeout: 5s\n  requestBodyTimeout: 3s\n"
              + "tools:\n  default:\n    attachWindow: 1m\n    resultRetention: "
              + RETENTION
              + "\n");
      tally =
          TallyProcess.serve(dir, config, TallyProcess.SMALL_JVM, Map.of())
              .awaitListening(Duration.ofSeconds(60));
    }

    void traffic(int worker, long i, AtomicLong calls) throws Exception {
      String title = "soak-" + worker + "-" + i + "-" + UUID.randomUUID();
      McpClient.Answer a =
          agent.call(tally.mcp(), i, CountingUpstream.KEYED, title, "k-" + title, WAIT);
      if (a.isToolResult()) {
        calls.incrementAndGet();
      }
      String dropped = "drop-" + title;
      upstream.script(dropped, Script.after(Duration.ofMillis(200)));
      McpClient.Exchange x =
          agent.send(tally.mcp(), i, CountingUpstream.IRREVERSIBLE, dropped, null);
      upstream.received(dropped).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
      x.abort(); // the client goes away while the upstream works
      if (i % 4 == 0) {
        try (Socket s = open()) {
          write(s, "POST " + tally.mcp().getRawPath() + " HTTP/1.1\r\nHost: 127.0.0.1\r\n");
          write(s, "Content-Type: application/json\r\nContent-Length: 4000000\r\n\r\n{\"a\":\"");
          // closed by us at once: a declared body never sent, a stalled body
        }
        Socket loris = open();
        write(loris, "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\n"); // left for the header timeout
        loris.setSoTimeout((int) WAIT.toMillis());
        try (loris) {
          while (loris.getInputStream().read() >= 0) {
            // the sidecar closes it
          }
        } catch (IOException closed) {
          // reset: also closed
        }
      }
    }

    private Socket open() throws IOException {
      Socket s = new Socket();
      s.connect(new InetSocketAddress("127.0.0.1", tally.mcp().getPort()), 10_000);
      return s;
    }

    private static void write(Socket s, String text) throws IOException {
      OutputStream out = s.getOutputStream();
      out.write(text.getBytes(StandardCharsets.US_ASCII));
      out.flush();
    }

    Sample sample(long second, long calls) throws Exception {
      jcmd("GC.run");
      String info = jcmd("GC.heap_info");
      long heap = 0;
      for (String line : info.split("\n")) {
        Matcher m = Pattern.compile("used (\\d+)K").matcher(line);
        if (line.contains("generation") && m.find()) {
          heap += Long.parseLong(m.group(1)); // young and old, not metaspace
        }
      }
      Map<String, Long> kinds = new java.util.TreeMap<>();
      try (var s = Files.list(Path.of("/proc", Long.toString(tally.pid()), "fd"))) {
        s.forEach(fd -> kinds.merge(kind(fd), 1L, Long::sum));
      }
      long fds = kinds.values().stream().mapToLong(Long::longValue).sum();
      String metrics = agent.get(tally.admin("/metrics")).body();
      return new Sample(
          second,
          heap,
          fds,
          gauge(metrics, "tally_http_connections"),
          calls,
          gauge(metrics, "tally_store_executions"),
          kinds);
    }

    /** What descriptor {@code fd} points at, its digits as {@code #} ("socket", a file's name). */
    private String kind(Path fd) {
      try {
        String target = Files.readSymbolicLink(fd).toString();
        int colon = target.indexOf(':');
        if (colon > 0 && !target.startsWith("/")) {
          return target.substring(0, colon); // socket:[123], pipe:[456], anon_inode:[eventpoll]
        }
        String name = dir.relativize(Path.of(target)).toString();
        return (name.startsWith("..") ? target : name).replaceAll("[0-9]+", "#");
      } catch (IOException | IllegalArgumentException gone) {
        return "closed while listed";
      }
    }

    /** The first series of {@code name} in Prometheus text, -1 when absent. */
    private static long gauge(String metrics, String name) {
      Matcher m =
          Pattern.compile("(?m)^" + Pattern.quote(name) + "(\\{[^}]*\\})? (\\S+)$")
              .matcher(metrics);
      return m.find() ? (long) Double.parseDouble(m.group(2)) : -1;
    }

    private String jcmd(String command) throws Exception {
      Process p =
          new ProcessBuilder(
                  Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                  Long.toString(tally.pid()),
                  command)
              .redirectErrorStream(true)
              .start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
      return out;
    }

    @Override
    public void close() {
      tally.close();
      agent.close();
      try {
        upstream.close();
      } catch (Exception e) {
        throw new IllegalStateException("closing the upstream", e);
      }
    }
  }
}
