package dev.tally.bench.filter;

import java.lang.management.ManagementFactory;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Throughput of the same MCP app (Java SDK in Jetty) with and without the Tally filter, under the
 * same closed-loop load from an in-process driver, measured interleaved in one run
 * (/work/shared/PERFORMANCE.md): warm-up, then rounds alternating the order of the contenders;
 * reports the median of the per-round ratios with min–max, and CPU per request (whole process,
 * driver included) for both.
 *
 * <p>Workloads: {@code pass-through} calls the read-only tool (the filter parses the body, asks the
 * gate, forwards untouched); {@code side-effecting} calls the write tool with fresh arguments each
 * time (a new execution per call, memory store, result captured from the SSE stream).
 *
 * <p>Arguments (all optional): {@code seconds-per-sample} (5), {@code rounds} (6), {@code
 * concurrency} (16), {@code warmup-seconds} (10).
 */
public final class FilterOverheadBench {
  private FilterOverheadBench() {}

  public static void main(String[] args) throws Exception {
    int sample = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 6;
    int conc = args.length > 2 ? Integer.parseInt(args[2]) : 16;
    int warmup = args.length > 3 ? Integer.parseInt(args[3]) : 10;
    TicketApp plain = new TicketApp(false);
    TicketApp tally = new TicketApp(true);
    ExecutorService pool = Executors.newFixedThreadPool(conc);
    try {
      Driver p = new Driver(plain, pool, conc);
      Driver t = new Driver(tally, pool, conc);
      System.out.printf(
          Locale.ROOT,
          "filter overhead (JDK %s, %d cores):%n",
          Runtime.version(),
          Runtime.getRuntime().availableProcessors());
      System.out.printf(
          Locale.ROOT,
          "filter overhead: %d rounds x %ds per sample, %d concurrent clients, %ds warm-up%n",
          rounds,
          sample,
          conc,
          warmup);
      for (String workload : List.of("pass-through", "side-effecting")) {
        boolean write = workload.equals("side-effecting");
        p.run(write, warmup);
        t.run(write, warmup);
        double[] ratios = new double[rounds];
        double[] cpuRatios = new double[rounds];
        double sumPlain = 0;
        double sumTally = 0;
        for (int r = 0; r < rounds; r++) {
          Sample a;
          Sample b;
          if (r % 2 == 0) {
            a = p.run(write, sample);
            b = t.run(write, sample);
          } else {
            b = t.run(write, sample);
            a = p.run(write, sample);
          }
          ratios[r] = b.rate() / a.rate();
          cpuRatios[r] = b.cpuPerRequestMicros() / a.cpuPerRequestMicros();
          sumPlain += a.rate();
          sumTally += b.rate();
          System.out.printf(
              Locale.ROOT,
              "  %-14s round %d: without %8.0f req/s (%5.0f us CPU/req), with %8.0f req/s"
                  + " (%5.0f us CPU/req), ratio %.3f%n",
              workload,
              r + 1,
              a.rate(),
              a.cpuPerRequestMicros(),
              b.rate(),
              b.cpuPerRequestMicros(),
              ratios[r]);
        }
        double[] sorted = ratios.clone();
        Arrays.sort(sorted);
        double[] cpuSorted = cpuRatios.clone();
        Arrays.sort(cpuSorted);
        System.out.printf(
            Locale.ROOT,
            "RESULT %s: throughput with/without median %.3f (min %.3f, max %.3f);"
                + " mean req/s without %.0f, with %.0f; CPU per request with/without median %.3f%n",
            workload,
            median(sorted),
            sorted[0],
            sorted[sorted.length - 1],
            sumPlain / rounds,
            sumTally / rounds,
            median(cpuSorted));
      }
    } finally {
      pool.shutdownNow();
      plain.close();
      tally.close();
    }
  }

  private static double median(double[] sorted) {
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  record Sample(long requests, long nanos, long cpuNanos) {
    double rate() {
      return requests * 1e9 / nanos;
    }

    double cpuPerRequestMicros() {
      return requests == 0 ? 0 : cpuNanos / 1e3 / requests;
    }
  }

  /** A closed-loop driver: {@code conc} clients, each sending the next request on an answer. */
  static final class Driver {
    private static final AtomicLong IDS = new AtomicLong();
    private static final AtomicLong MESSAGES = new AtomicLong();
    private final TicketApp app;
    private final ExecutorService pool;
    private final int conc;
    private final HttpClient http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    private final String session;

    Driver(TicketApp app, ExecutorService pool, int conc) throws Exception {
      this.app = app;
      this.pool = pool;
      this.conc = conc;
      HttpResponse<String> init =
          send(
              "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":"
                  + "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
                  + "\"clientInfo\":{\"name\":\"bench\",\"version\":\"1\"}}}",
              null);
      session = init.headers().firstValue("Mcp-Session-Id").orElseThrow();
      send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", session);
      send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}", session);
    }

    Sample run(boolean write, int seconds) throws Exception {
      long end = System.nanoTime() + seconds * 1_000_000_000L;
      com.sun.management.OperatingSystemMXBean os =
          (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
      long cpu0 = os.getProcessCpuTime();
      long t0 = System.nanoTime();
      List<Future<Long>> workers = new ArrayList<>();
      for (int i = 0; i < conc; i++) {
        workers.add(
            pool.submit(
                () -> {
                  long n = 0;
                  while (System.nanoTime() < end) {
                    HttpResponse<String> r;
                    try {
                      r = send(body(write), session);
                    } catch (java.io.IOException e) {
                      // A pooled connection closed under the client: not a request served.
                      continue;
                    }
                    if (r.statusCode() != 200 || !r.body().contains("ticket T-")) {
                      throw new IllegalStateException("unexpected answer " + r.statusCode());
                    }
                    n++;
                  }
                  return n;
                }));
      }
      long total = 0;
      for (Future<Long> f : workers) {
        total += f.get();
      }
      long t1 = System.nanoTime();
      long cpu1 = os.getProcessCpuTime();
      return new Sample(total, t1 - t0, cpu1 - cpu0);
    }

    private static String body(boolean write) {
      String tool = write ? TicketApp.WRITE : TicketApp.READ;
      String message = write ? "m-" + MESSAGES.incrementAndGet() : "same";
      return "{\"jsonrpc\":\"2.0\",\"id\":"
          + IDS.incrementAndGet()
          + ",\"method\":\"tools/call\",\"params\":{\"name\":\""
          + tool
          + "\",\"arguments\":{\"message\":\""
          + message
          + "\"}}}";
    }

    private HttpResponse<String> send(String body, String sessionId) throws Exception {
      HttpRequest.Builder b =
          HttpRequest.newBuilder(app.endpoint)
              .timeout(Duration.ofSeconds(30))
              .header("Content-Type", "application/json")
              .header("Accept", "application/json, text/event-stream")
              .header("MCP-Protocol-Version", "2025-06-18")
              .POST(HttpRequest.BodyPublishers.ofString(body));
      if (sessionId != null) {
        b.header("Mcp-Session-Id", sessionId);
      }
      return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
  }
}
