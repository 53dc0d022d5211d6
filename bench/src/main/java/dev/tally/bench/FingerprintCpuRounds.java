package dev.tally.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * The {@link FingerprintBenchmark} operations measured the way /work/shared/PERFORMANCE.md asks on
 * a shared machine: contenders interleaved in rounds after a warm-up, thread CPU time per operation
 * rather than wall time, and the median of the per-round ratios with its min-max.
 *
 * <p>{@code java -cp bench/target/tally-bench.jar dev.tally.bench.FingerprintCpuRounds [rounds]
 * [warmupSeconds]}
 */
public final class FingerprintCpuRounds {
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
  private static volatile Object sink;

  private FingerprintCpuRounds() {}

  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 30;
    int warmupSeconds = args.length > 1 ? Integer.parseInt(args[1]) : 20;
    System.out.printf(
        "%-6s %-20s %12s %12s %14s %22s%n",
        "size", "operation", "CPU ns/op", "best ns/op", "ops/s per core", "vs jackson (min-max)");
    for (String size : List.of("small", "large")) {
      FingerprintBenchmark b = new FingerprintBenchmark();
      b.size = size;
      b.setUp();
      List<Supplier<Object>> ops =
          List.of(b::fullPath, b::canonicalizeAndHmac, FingerprintCpuRounds.jackson(b));
      List<String> names = List.of("fullPath", "canonicalizeAndHmac", "jacksonReadWrite");
      int batch = "small".equals(size) ? 20_000 : 500;
      long warmEnd = System.nanoTime() + warmupSeconds * 1_000_000_000L;
      while (System.nanoTime() < warmEnd) {
        for (Supplier<Object> op : ops) {
          cpuNanosPerOp(op, batch);
        }
      }
      double[][] perOp = new double[ops.size()][rounds];
      for (int r = 0; r < rounds; r++) {
        for (int o = 0; o < ops.size(); o++) {
          perOp[o][r] = cpuNanosPerOp(ops.get(o), batch);
        }
      }
      double[] jackson = perOp[ops.size() - 1];
      for (int o = 0; o < ops.size(); o++) {
        double[] ratio = new double[rounds];
        for (int r = 0; r < rounds; r++) {
          ratio[r] = jackson[r] / perOp[o][r]; // throughput relative to jackson
        }
        double median = median(perOp[o]);
        System.out.printf(
            Locale.ROOT,
            "%-6s %-20s %12.0f %12.0f %14.0f %10.2fx (%.2f-%.2f)%n",
            size,
            names.get(o),
            median,
            Arrays.stream(perOp[o]).min().orElseThrow(),
            1e9 / median,
            median(ratio),
            Arrays.stream(ratio).min().orElseThrow(),
            Arrays.stream(ratio).max().orElseThrow());
      }
    }
  }

  private static Supplier<Object> jackson(FingerprintBenchmark b) {
    return () -> {
      try {
        return b.jacksonReadWrite();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    };
  }

  private static double cpuNanosPerOp(Supplier<Object> op, int batch) {
    long start = THREADS.getCurrentThreadCpuTime();
    for (int i = 0; i < batch; i++) {
      sink = op.get();
    }
    return (THREADS.getCurrentThreadCpuTime() - start) / (double) batch;
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }
}
