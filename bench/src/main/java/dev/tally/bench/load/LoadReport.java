package dev.tally.bench.load;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * Turns the samples of one bench/load/run.sh run ({@code samples.txt}: one {@code key=value} line
 * per measured sample) into the Markdown report: throughput with the median of per-round ratios and
 * their min–max, CPU per request, journal group commit, fixed-rate added latency, retry storms, and
 * a met/missed line per target.
 *
 * <p>Ratios are formed within a round (contenders of one round ran back to back) and only then
 * summarized, as /work/shared/PERFORMANCE.md prescribes for a shared two-core machine.
 */
public final class LoadReport {
  private static final String DIRECT = "direct";
  private static final String NGINX = "nginx";

  /** One measured sample. */
  record Sample(Map<String, String> v) {
    String s(String k) {
      return v.getOrDefault(k, "");
    }

    double d(String k) {
      String x = v.get(k);
      return x == null || x.isEmpty() ? 0 : Double.parseDouble(x);
    }

    int round() {
      return (int) d("round");
    }

    double rps() {
      return d("requests") / (d("duration_us") / 1e6);
    }

    double errors() {
      return d("connect_err") + d("read_err") + d("write_err") + d("timeout_err") + d("non2xx");
    }

    /** Process CPU microseconds per request of this contender's process (for direct: upstream). */
    double cpuUsPerRequest(String key) {
      double n = d("requests");
      return n == 0 ? 0 : d(key) / d("tick_hz") * 1e6 / n;
    }
  }

  private final List<Sample> samples;
  private final StringBuilder out = new StringBuilder();
  private final List<String> verdicts = new ArrayList<>();

  private LoadReport(List<Sample> samples) {
    this.samples = samples;
  }

  public static void main(String[] args) throws IOException {
    Path dir = Path.of(args.length > 0 ? args[0] : ".");
    List<Sample> samples = new ArrayList<>();
    for (String line : Files.readAllLines(dir.resolve("samples.txt"), StandardCharsets.UTF_8)) {
      if (!line.isBlank()) {
        samples.add(new Sample(parse(line)));
      }
    }
    LoadReport r = new LoadReport(samples);
    Path config = dir.resolve("config.txt");
    List<String> cfg =
        Files.exists(config) ? Files.readAllLines(config, StandardCharsets.UTF_8) : List.of();
    System.out.print(r.render(cfg));
  }

  static Map<String, String> parse(String line) {
    Map<String, String> m = new LinkedHashMap<>();
    for (String tok : line.trim().split("\\s+")) {
      int eq = tok.indexOf('=');
      if (eq > 0) {
        m.put(tok.substring(0, eq), tok.substring(eq + 1));
      }
    }
    return m;
  }

  private String render(List<String> cfg) {
    out.append("Run configuration:\n\n```\n");
    cfg.forEach(l -> out.append(l).append('\n'));
    out.append("```\n\n");
    throughput();
    sizes();
    journal();
    postgres();
    paced();
    storms();
    if (!verdicts.isEmpty()) {
      out.append("Targets (median of per-round values):\n\n");
      verdicts.forEach(v -> out.append("- ").append(v).append('\n'));
      out.append('\n');
    }
    return out.toString();
  }

  private void throughput() {
    List<String> phases = phases(p -> p.equals("list") || p.equals("lookup") || p.equals("effect"));
    if (phases.isEmpty()) {
      return;
    }
    out.append("Throughput at saturation (wrk, every contender in every round; ratios are medians")
        .append(" of per-round ratios, [min–max]):\n\n")
        .append("| workload | contender | req/s | × direct | × nginx | proxy CPU µs/req |")
        .append(" upstream CPU µs/req | p50 ms | p99 ms | errors | upstream executions/req |\n")
        .append("|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (String phase : phases) {
      for (String c : contenders(phase)) {
        List<Sample> s = of(phase, c);
        boolean proxy = !c.equals(DIRECT);
        out.append("| ")
            .append(label(phase))
            .append(" | ")
            .append(c)
            .append(" | ")
            .append(fmt0(median(s, Sample::rps)))
            .append(" | ")
            .append(proxy ? ratio(phase, c, DIRECT) : "1")
            .append(" | ")
            .append(c.equals(NGINX) ? "1" : ratio(phase, c, NGINX))
            .append(" | ")
            .append(proxy ? fmt1(median(s, x -> x.cpuUsPerRequest("proc_cpu_ticks"))) : "–")
            .append(" | ")
            .append(fmt1(median(s, x -> x.cpuUsPerRequest("upstream_cpu_ticks"))))
            .append(" | ")
            .append(fmt2(median(s, x -> x.d("p50_us") / 1000)))
            .append(" | ")
            .append(fmt2(median(s, x -> x.d("p99_us") / 1000)))
            .append(" | ")
            .append(fmt0(s.stream().mapToDouble(Sample::errors).sum()))
            .append(" | ")
            .append(
                phase.equals("effect")
                    ? fmt3(
                        s.stream().mapToDouble(x -> x.d("executed")).sum()
                            / s.stream().mapToDouble(x -> x.d("requests")).sum())
                    : "–")
            .append(" |\n");
        if (isTally(phase, c)) {
          if (phase.equals("effect")) {
            verdict(phase, c, DIRECT, 0.7, "side-effecting (memory) ≥ 0.7 × direct");
          } else {
            verdict(phase, c, DIRECT, 0.85, "pass-through " + label(phase) + " ≥ 0.85 × direct");
            verdict(phase, c, NGINX, 1.0, "pass-through " + label(phase) + " ≥ 1.0 × nginx");
          }
        }
      }
    }
    out.append('\n');
  }

  /**
   * The cost-by-size phases ({@code lookup#16384}: an argument and a result of that many bytes
   * each, {@code bench/run --sizes}): throughput, its ratio to nginx in the same round, CPU per
   * request and p99 per contender and size, and per contender how much CPU each further KiB costs
   * (the slope between the smallest and the largest size).
   */
  private void sizes() {
    List<String> phases = phases(p -> p.matches("(lookup|effect)#\\d+"));
    if (phases.isEmpty()) {
      return;
    }
    phases.sort(
        java.util.Comparator.comparing((String p) -> p.substring(0, p.indexOf('#')))
            .thenComparingInt(LoadReport::bytes));
    out.append("Cost by size (an argument and a result of this many bytes each, ")
        .append(
            of(phases.get(0), DIRECT).isEmpty() ? "" : of(phases.get(0), DIRECT).get(0).s("conns"))
        .append(" connections):\n\n")
        .append(
            "| workload | bytes | contender | req/s | × nginx | proxy CPU µs/req | p99 ms | errors |\n")
        .append("|---|---|---|---|---|---|---|---|\n");
    for (String phase : phases) {
      for (String c : contenders(phase)) {
        List<Sample> s = of(phase, c);
        boolean proxy = !c.equals(DIRECT);
        out.append("| ")
            .append(label(phase.substring(0, phase.indexOf('#'))))
            .append(" | ")
            .append(bytes(phase))
            .append(" | ")
            .append(c)
            .append(" | ")
            .append(fmt0(median(s, Sample::rps)))
            .append(" | ")
            .append(c.equals(NGINX) ? "1" : ratio(phase, c, NGINX))
            .append(" | ")
            .append(proxy ? fmt1(median(s, x -> x.cpuUsPerRequest("proc_cpu_ticks"))) : "–")
            .append(" | ")
            .append(fmt2(median(s, x -> x.d("p99_us") / 1000)))
            .append(" | ")
            .append(fmt0(s.stream().mapToDouble(Sample::errors).sum()))
            .append(" |\n");
      }
    }
    out.append('\n');
    List<String> slopes = new ArrayList<>();
    for (String wl : List.of("lookup", "effect")) {
      List<String> ps = phases.stream().filter(p -> p.startsWith(wl + "#")).toList();
      if (ps.size() < 2) {
        continue;
      }
      String small = ps.get(0);
      String large = ps.get(ps.size() - 1);
      double kib = (bytes(large) - bytes(small)) / 1024.0;
      for (String c : contenders(large)) {
        if (c.equals(DIRECT) || of(small, c).isEmpty()) {
          continue;
        }
        double a = median(of(small, c), x -> x.cpuUsPerRequest("proc_cpu_ticks"));
        double b = median(of(large, c), x -> x.cpuUsPerRequest("proc_cpu_ticks"));
        slopes.add(
            String.format(
                Locale.ROOT,
                "%s, %s: %.2f µs of CPU per further KiB (%.1f at %d bytes, %.1f at %d)",
                c,
                label(wl),
                (b - a) / kib,
                a,
                bytes(small),
                b,
                bytes(large)));
      }
    }
    if (!slopes.isEmpty()) {
      out.append("CPU per request against size (slope between the smallest and largest size):\n\n");
      slopes.forEach(l -> out.append("- ").append(l).append('\n'));
      out.append('\n');
    }
  }

  private static int bytes(String phase) {
    return Integer.parseInt(phase.substring(phase.indexOf('#') + 1));
  }

  private void journal() {
    List<String> js = new ArrayList<>();
    for (String c : contenders("effect")) {
      if (kind("effect", c).equals("journal")) {
        js.add(c);
      }
    }
    String mem = firstMemory("effect");
    if (js.isEmpty() || mem == null) {
      return;
    }
    out.append("Journal store, side-effecting calls at ")
        .append(of("effect", js.get(0)).get(0).s("conns"))
        .append(" concurrent clients (issue 4):\n\n")
        .append("| contender | req/s | × ")
        .append(mem)
        .append(
            " (memory) | fsyncs/s | journal records per fsync | records per request | machine"
                + " idle % (memory's) |\n")
        .append("|---|---|---|---|---|---|---|\n");
    for (String j : js) {
      List<Sample> s = of("effect", j);
      out.append("| ")
          .append(j)
          .append(" | ")
          .append(fmt0(median(s, Sample::rps)))
          .append(" | ")
          .append(ratio("effect", j, mem))
          .append(" | ")
          .append(fmt0(median(s, x -> x.d("fsyncs") / (x.d("duration_us") / 1e6))))
          .append(" | ")
          .append(fmt1(median(s, x -> x.d("records") / Math.max(1, x.d("fsyncs")))))
          .append(" | ")
          .append(fmt2(median(s, x -> x.d("records") / Math.max(1, x.d("requests")))))
          .append(" | ")
          .append(idle(s))
          .append(" (")
          .append(idle(of("effect", mem)))
          .append(") |\n");
      verdict("effect", j, mem, 0.6, "journal store ≥ 0.6 × memory store at 64 clients");
    }
    out.append('\n');
  }

  /**
   * The median share of the machine's CPU left idle while the samples ran ("–" for runs before it
   * was recorded): well above zero, a contender waits (on fsyncs, say) rather than computes.
   */
  private static String idle(List<Sample> s) {
    if (s.isEmpty() || s.get(0).s("machine_idle_pct").isEmpty()) {
      return "–";
    }
    return fmt1(median(s, x -> x.d("machine_idle_pct")));
  }

  /**
   * PostgreSQL store contenders (issue 6): throughput against the memory store, CPU per request of
   * the sidecar process(es) and of the PostgreSQL server (postmaster and every backend), and store
   * round trips per upstream execution (every statement the store sent, background work included).
   */
  private void postgres() {
    List<String> pgs = new ArrayList<>();
    for (String c : contenders("effect")) {
      if (kind("effect", c).startsWith("postgres")) {
        pgs.add(c);
      }
    }
    String mem = firstMemory("effect");
    if (pgs.isEmpty() || mem == null) {
      return;
    }
    out.append("PostgreSQL store, side-effecting calls at ")
        .append(of("effect", pgs.get(0)).get(0).s("conns"))
        .append(" concurrent clients in total (issue 6; two replicas: two wrk processes, one per")
        .append(" replica, half the connections each):\n\n")
        .append("| contender | replicas | req/s | × ")
        .append(mem)
        .append(" (memory) | sidecar CPU µs/req | PostgreSQL CPU µs/req | round trips per call |")
        .append(" notify statements per call | p50 ms | p99 ms | errors |\n")
        .append("|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (String c : pgs) {
      List<Sample> s = of("effect", c);
      double trips = sum(s, "store_trips") / Math.max(1, sum(s, "executed"));
      out.append("| ")
          .append(c)
          .append(" | ")
          .append(s.get(0).s("replicas"))
          .append(" | ")
          .append(fmt0(median(s, Sample::rps)))
          .append(" | ")
          .append(ratio("effect", c, mem))
          .append(" | ")
          .append(fmt1(median(s, x -> x.cpuUsPerRequest("proc_cpu_ticks"))))
          .append(" | ")
          .append(fmt1(median(s, x -> x.cpuUsPerRequest("db_cpu_ticks"))))
          .append(" | ")
          .append(fmt3(trips))
          .append(" | ")
          .append(fmt3(sum(s, "notify_stmts") / Math.max(1, sum(s, "executed"))))
          .append(" | ")
          .append(fmt2(median(s, x -> x.d("p50_us") / 1000)))
          .append(" | ")
          .append(fmt2(median(s, x -> x.d("p99_us") / 1000)))
          .append(" | ")
          .append(fmt0(s.stream().mapToDouble(Sample::errors).sum()))
          .append(" |\n");
      verdict("effect", c, mem, 0.4, "PostgreSQL store ≥ 0.4 × memory store at 64 clients");
      verdicts.add(
          String.format(
              Locale.ROOT,
              "%s, store round trips per side-effecting call ≤ 3: %.3f — **%s**",
              c,
              trips,
              trips <= 3.0 ? "met" : "missed"));
    }
    out.append('\n');
  }

  private void paced() {
    List<String> phases = phases(p -> p.startsWith("paced-"));
    if (phases.isEmpty()) {
      return;
    }
    Sample any = of(phases.get(0), DIRECT).get(0);
    out.append("Latency at a fixed moderate rate (")
        .append(any.s("conns"))
        .append(" connections, each waiting ")
        .append(any.s("delay_ms"))
        .append(" ms before each request; added = contender − direct within a round, median")
        .append(" [min–max]):\n\n")
        .append("| workload | contender | req/s | p50 ms | p99 ms | added p50 ms |")
        .append(" added p99 ms | proxy CPU µs/req |\n")
        .append("|---|---|---|---|---|---|---|---|\n");
    for (String phase : phases) {
      for (String c : contenders(phase)) {
        List<Sample> s = of(phase, c);
        boolean proxy = !c.equals(DIRECT);
        out.append("| ")
            .append(label(phase))
            .append(" | ")
            .append(c)
            .append(" | ")
            .append(fmt0(median(s, Sample::rps)))
            .append(" | ")
            .append(fmt2(median(s, x -> x.d("p50_us") / 1000)))
            .append(" | ")
            .append(fmt2(median(s, x -> x.d("p99_us") / 1000)))
            .append(" | ")
            .append(proxy ? added(phase, c, "p50_us") : "–")
            .append(" | ")
            .append(proxy ? added(phase, c, "p99_us") : "–")
            .append(" | ")
            .append(proxy ? fmt1(median(s, x -> x.cpuUsPerRequest("proc_cpu_ticks"))) : "–")
            .append(" |\n");
        if (isTally(phase, c)) {
          double[] a = addedValues(phase, c, "p99_us");
          double[] n = addedValues(phase, NGINX, "p99_us");
          if (a.length > 0) {
            double m = median(a);
            verdicts.add(
                String.format(
                    Locale.ROOT,
                    "%s, %s: p99 added latency at a fixed rate ≤ 1 ms: %.2f ms (nginx adds %.2f ms)"
                        + " — **%s**",
                    c,
                    label(phase),
                    m,
                    n.length > 0 ? median(n) : Double.NaN,
                    m <= 1.0 ? "met" : "missed"));
          }
        }
      }
    }
    out.append('\n');
  }

  private void storms() {
    List<String> phases = phases(p -> p.startsWith("storm"));
    if (phases.isEmpty()) {
      return;
    }
    out.append("Retry storms (each storm: one new intent sent by every client at once, the next")
        .append(" storm when all have answered; keyed: every copy also carries the same")
        .append(" idempotencyKey):\n\n")
        .append("| storm | contender | clients | storms/s | storms | answers | bad answers |")
        .append(" replayed answers | upstream executions | executions per storm |")
        .append(" storm p50 ms | storm p99 ms | proxy CPU ms/storm |\n")
        .append("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (String phase : phases) {
      boolean keyed = phase.equals("storm-keyed");
      for (String c : contenders(phase)) {
        stormRow(phase, c, keyed);
      }
    }
    out.append('\n');
  }

  private void stormRow(String phase, String c, boolean keyed) {
    List<Sample> s = of(phase, c);
    double storms = sum(s, "storms");
    double executed = sum(s, "executed");
    out.append("| ")
        .append(keyed ? "keyed" : "fingerprint only")
        .append(" | ")
        .append(c)
        .append(" | ")
        .append(s.get(0).s("clients"))
        .append(" | ")
        .append(fmt1(median(s, x -> x.d("storms_per_s"))))
        .append(" | ")
        .append(fmt0(storms))
        .append(" | ")
        .append(fmt0(sum(s, "answers")))
        .append(" | ")
        .append(fmt0(sum(s, "bad")))
        .append(" | ")
        .append(fmt0(sum(s, "replayed")))
        .append(" | ")
        .append(fmt0(executed))
        .append(" | ")
        .append(fmt3(executed / Math.max(1, storms)))
        .append(" | ")
        .append(fmt2(median(s, x -> x.d("storm_p50_ms"))))
        .append(" | ")
        .append(fmt2(median(s, x -> x.d("storm_p99_ms"))))
        .append(" | ")
        .append(
            c.equals(DIRECT)
                ? "–"
                : fmt2(
                    median(
                        s,
                        x ->
                            x.d("proc_cpu_ticks")
                                / x.d("tick_hz")
                                * 1e3
                                / Math.max(1, x.d("storms")))))
        .append(" |\n");
    if (!c.equals(DIRECT) && !c.equals(NGINX)) {
      boolean ok = executed == storms && sum(s, "bad") == 0;
      verdicts.add(
          String.format(
              Locale.ROOT,
              "%s, retry storm (%s): exactly one upstream execution per storm and every answer a"
                  + " result: %d executions for %d storms, %d bad answers — **%s**",
              c,
              keyed ? "keyed" : "fingerprint only",
              (long) executed,
              (long) storms,
              (long) sum(s, "bad"),
              ok ? "met" : "missed"));
    }
  }

  // ---------------------------------------------------------------- helpers

  private void verdict(String phase, String c, String base, double target, String what) {
    double[] r = ratios(phase, c, base);
    if (r.length == 0) {
      return;
    }
    double m = median(r);
    verdicts.add(
        String.format(
            Locale.ROOT,
            "%s, %s: %.2f [%.2f–%.2f] — **%s**",
            c,
            what,
            m,
            min(r),
            max(r),
            m >= target ? "met" : "missed"));
  }

  private String ratio(String phase, String c, String base) {
    double[] r = ratios(phase, c, base);
    if (r.length == 0) {
      return "–";
    }
    return String.format(Locale.ROOT, "%.2f [%.2f–%.2f]", median(r), min(r), max(r));
  }

  private double[] ratios(String phase, String c, String base) {
    List<Double> r = new ArrayList<>();
    for (Sample s : of(phase, c)) {
      Sample b = inRound(phase, base, s.round());
      if (b != null && b.rps() > 0) {
        r.add(s.rps() / b.rps());
      }
    }
    return r.stream().mapToDouble(Double::doubleValue).toArray();
  }

  private String added(String phase, String c, String key) {
    double[] a = addedValues(phase, c, key);
    if (a.length == 0) {
      return "–";
    }
    return String.format(Locale.ROOT, "%.2f [%.2f–%.2f]", median(a), min(a), max(a));
  }

  private double[] addedValues(String phase, String c, String key) {
    List<Double> r = new ArrayList<>();
    for (Sample s : of(phase, c)) {
      Sample b = inRound(phase, DIRECT, s.round());
      if (b != null) {
        r.add((s.d(key) - b.d(key)) / 1000);
      }
    }
    return r.stream().mapToDouble(Double::doubleValue).toArray();
  }

  private Sample inRound(String phase, String c, int round) {
    for (Sample s : of(phase, c)) {
      if (s.round() == round) {
        return s;
      }
    }
    return null;
  }

  private boolean isTally(String phase, String c) {
    return kind(phase, c).equals("memory");
  }

  private String kind(String phase, String c) {
    List<Sample> s = of(phase, c);
    return s.isEmpty() ? "" : s.get(0).s("kind");
  }

  private String firstMemory(String phase) {
    for (String c : contenders(phase)) {
      if (isTally(phase, c)) {
        return c;
      }
    }
    return null;
  }

  private List<String> phases(java.util.function.Predicate<String> which) {
    List<String> r = new ArrayList<>();
    for (Sample s : samples) {
      String p = s.s("phase");
      if (which.test(p) && !r.contains(p)) {
        r.add(p);
      }
    }
    return r;
  }

  private List<String> contenders(String phase) {
    List<String> r = new ArrayList<>();
    for (Sample s : samples) {
      if (s.s("phase").equals(phase) && !r.contains(s.s("contender"))) {
        r.add(s.s("contender"));
      }
    }
    return r;
  }

  private List<Sample> of(String phase, String c) {
    List<Sample> r = new ArrayList<>();
    for (Sample s : samples) {
      if (s.s("phase").equals(phase) && s.s("contender").equals(c)) {
        r.add(s);
      }
    }
    return r;
  }

  private static String label(String phase) {
    return switch (phase) {
      case "list", "paced-list" -> "tools/list";
      case "lookup", "paced-lookup" -> "read-only tools/call";
      case "effect", "paced-effect" -> "side-effecting tools/call";
      default -> phase;
    };
  }

  private static double sum(List<Sample> s, String key) {
    return s.stream().mapToDouble(x -> x.d(key)).sum();
  }

  private static double median(List<Sample> s, ToDoubleFunction<Sample> f) {
    return median(s.stream().mapToDouble(f).toArray());
  }

  static double median(double[] v) {
    if (v.length == 0) {
      return Double.NaN;
    }
    double[] c = v.clone();
    Arrays.sort(c);
    int n = c.length;
    return n % 2 == 1 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
  }

  private static double min(double[] v) {
    return Arrays.stream(v).min().orElse(Double.NaN);
  }

  private static double max(double[] v) {
    return Arrays.stream(v).max().orElse(Double.NaN);
  }

  private static String fmt0(double v) {
    return String.format(Locale.ROOT, "%.0f", v);
  }

  private static String fmt1(double v) {
    return String.format(Locale.ROOT, "%.1f", v);
  }

  private static String fmt2(double v) {
    return String.format(Locale.ROOT, "%.2f", v);
  }

  private static String fmt3(double v) {
    return String.format(Locale.ROOT, "%.3f", v);
  }
}
