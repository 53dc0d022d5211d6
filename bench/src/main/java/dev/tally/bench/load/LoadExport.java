package dev.tally.bench.load;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Writes a load run's {@code samples.txt} as {@code samples.csv} (one row per sample, one column
 * per key any sample has) and as {@code report.html}: a self-contained page (inline SVG, no script,
 * no network) with, per workload, throughput and p99 per contender (median of the measured rounds,
 * the whisker from the lowest to the highest round), CPU per request, and — where a workload was
 * run at several connection counts — the scale curves of throughput and p99 against concurrency.
 * The markdown report of the same run ({@code report.md}, {@link LoadReport}) is included below the
 * plots when present.
 *
 * <p>Usage: {@code java -cp tally-bench.jar dev.tally.bench.load.LoadExport OUT_DIR}.
 */
public final class LoadExport {
  private static final String[] COLOURS = {
    "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#9c755f"
  };

  private LoadExport() {}

  public static void main(String[] args) throws IOException {
    if (args.length != 1 || args[0].equals("--help")) {
      System.err.println("usage: LoadExport OUT_DIR   (reads OUT_DIR/samples.txt)");
      System.exit(args.length == 1 ? 0 : 2);
    }
    Path dir = Path.of(args[0]);
    Path samples = dir.resolve("samples.txt");
    if (!Files.exists(samples)) {
      System.err.println(
          "LoadExport: " + samples + " does not exist (expected a load run's output)");
      System.exit(2);
    }
    List<Map<String, String>> rows = read(samples);
    Files.writeString(dir.resolve("samples.csv"), csv(rows), StandardCharsets.UTF_8);
    Path md = dir.resolve("report.md");
    String report = Files.exists(md) ? Files.readString(md, StandardCharsets.UTF_8) : "";
    Path config = dir.resolve("config.txt");
    String cfg = Files.exists(config) ? Files.readString(config, StandardCharsets.UTF_8) : "";
    Files.writeString(dir.resolve("report.html"), html(rows, cfg, report), StandardCharsets.UTF_8);
  }

  static List<Map<String, String>> read(Path samples) throws IOException {
    List<Map<String, String>> rows = new ArrayList<>();
    for (String line : Files.readAllLines(samples, StandardCharsets.UTF_8)) {
      if (!line.isBlank()) {
        rows.add(LoadReport.parse(line));
      }
    }
    return rows;
  }

  /** RFC 4180 CSV; a column for every key, in first-seen order. */
  static String csv(List<Map<String, String>> rows) {
    Set<String> keys = new LinkedHashSet<>();
    rows.forEach(r -> keys.addAll(r.keySet()));
    StringBuilder sb = new StringBuilder();
    sb.append(String.join(",", keys.stream().map(LoadExport::cell).toList())).append("\r\n");
    for (Map<String, String> r : rows) {
      List<String> cells = new ArrayList<>();
      for (String k : keys) {
        cells.add(cell(r.getOrDefault(k, "")));
      }
      sb.append(String.join(",", cells)).append("\r\n");
    }
    return sb.toString();
  }

  private static String cell(String v) {
    return v.contains(",") || v.contains("\"") || v.contains("\n")
        ? '"' + v.replace("\"", "\"\"") + '"'
        : v;
  }

  /** Measured (round > 0) saturation or paced samples, without storms. */
  private static boolean measured(Map<String, String> r) {
    return !r.getOrDefault("round", "0").equals("0")
        && r.containsKey("requests")
        && !r.getOrDefault("phase", "").startsWith("storm");
  }

  static double rps(Map<String, String> r) {
    return d(r, "requests") / (d(r, "duration_us") / 1e6);
  }

  static double p99ms(Map<String, String> r) {
    return d(r, "p99_us") / 1000;
  }

  static double cpuUs(Map<String, String> r) {
    double n = d(r, "requests");
    return n == 0 || d(r, "tick_hz") == 0 ? 0 : d(r, "proc_cpu_ticks") / d(r, "tick_hz") * 1e6 / n;
  }

  private static double d(Map<String, String> r, String k) {
    String v = r.get(k);
    return v == null || v.isEmpty() ? 0 : Double.parseDouble(v);
  }

  /** Median, lowest and highest of one contender's measured rounds. */
  record Spread(double median, double min, double max) {
    static Spread of(List<Double> v) {
      double[] a = v.stream().mapToDouble(Double::doubleValue).sorted().toArray();
      return new Spread(LoadReport.median(a), a[0], a[a.length - 1]);
    }
  }

  interface Metric {
    double of(Map<String, String> r);
  }

  static String html(List<Map<String, String>> rows, String config, String reportMd) {
    // phase -> conns -> contender -> samples
    // A sweep phase (lookup@16) is its workload's phase at another connection count; a size phase
    // (lookup#16384) its workload with that many bytes of argument and result.
    Map<String, Map<Integer, Map<String, List<Map<String, String>>>>> by = new LinkedHashMap<>();
    Map<String, Map<Integer, Map<String, List<Map<String, String>>>>> bySize =
        new LinkedHashMap<>();
    Map<String, Integer> mainConns = new LinkedHashMap<>();
    for (Map<String, String> r : rows) {
      if (!measured(r)) {
        continue;
      }
      String phase = r.get("phase");
      if (phase.matches(".+#\\d+")) {
        bySize
            .computeIfAbsent(phase.substring(0, phase.indexOf('#')), p -> new LinkedHashMap<>())
            .computeIfAbsent(
                Integer.parseInt(phase.substring(phase.indexOf('#') + 1)), n -> new TreeMap<>())
            .computeIfAbsent(r.get("contender"), c -> new ArrayList<>())
            .add(r);
        continue;
      }
      String base = phase.replaceAll("@\\d+$", "");
      if (base.equals(phase)) {
        mainConns.put(base, (int) d(r, "conns"));
      }
      by.computeIfAbsent(base, p -> new TreeMap<>())
          .computeIfAbsent((int) d(r, "conns"), c -> new LinkedHashMap<>())
          .computeIfAbsent(r.get("contender"), c -> new ArrayList<>())
          .add(r);
    }
    StringBuilder sb = new StringBuilder();
    sb.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
        .append("<title>Tally load run</title><style>")
        .append("body{font:14px/1.4 system-ui,sans-serif;margin:2em;max-width:1100px}")
        .append("h2{margin-top:2em}svg{margin:.5em 1em .5em 0}pre{background:#f6f6f6;padding:1em;")
        .append("overflow-x:auto;white-space:pre-wrap}table{border-collapse:collapse}")
        .append(
            "td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}</style></head><body>")
        .append("<h1>Tally load run</h1>\n<pre>")
        .append(esc(config))
        .append("</pre>\n");
    if (by.isEmpty() && bySize.isEmpty()) {
      sb.append("<p>No measured samples in this run.</p>\n");
    }
    for (var phase : by.entrySet()) {
      sb.append("<h2>").append(esc(phase.getKey())).append("</h2>\n");
      Map<Integer, Map<String, List<Map<String, String>>>> byConns = phase.getValue();
      int conns =
          mainConns.getOrDefault(
              phase.getKey(), byConns.keySet().stream().max(Integer::compare).orElse(0));
      Map<String, List<Map<String, String>>> at = byConns.get(conns);
      sb.append(bars("req/s at " + conns + " connections", at, LoadExport::rps));
      sb.append(bars("p99 ms at " + conns + " connections", at, LoadExport::p99ms));
      sb.append(bars("process CPU µs per request", at, LoadExport::cpuUs));
      sb.append(table(at));
      if (byConns.size() > 1) {
        sb.append(curve("req/s vs connections", byConns, LoadExport::rps));
        sb.append(curve("p99 ms vs connections", byConns, LoadExport::p99ms));
      }
    }
    for (var phase : bySize.entrySet()) {
      // payload bytes -> contender -> samples, in increasing size
      Map<Integer, Map<String, List<Map<String, String>>>> bySizes =
          new TreeMap<>(phase.getValue());
      sb.append("<h2>")
          .append(esc(phase.getKey()))
          .append(" by size of argument and result</h2>\n");
      sb.append(curve("req/s vs bytes", bySizes, LoadExport::rps));
      sb.append(curve("process CPU µs per request vs bytes", bySizes, LoadExport::cpuUs));
      sb.append(curve("p99 ms vs bytes", bySizes, LoadExport::p99ms));
    }
    if (!reportMd.isEmpty()) {
      sb.append("<h2>Report</h2>\n<pre>").append(esc(reportMd)).append("</pre>\n");
    }
    return sb.append("</body></html>\n").toString();
  }

  private static String table(Map<String, List<Map<String, String>>> at) {
    StringBuilder sb =
        new StringBuilder(
            "<table><tr><th>contender</th><th>rounds</th><th>req/s</th><th>p99 ms</th>"
                + "<th>CPU µs/req</th></tr>\n");
    for (var c : at.entrySet()) {
      sb.append("<tr><td style=\"text-align:left\">")
          .append(esc(c.getKey()))
          .append("</td><td>")
          .append(c.getValue().size())
          .append("</td><td>")
          .append(fmt(spread(c.getValue(), LoadExport::rps).median()))
          .append("</td><td>")
          .append(fmt(spread(c.getValue(), LoadExport::p99ms).median()))
          .append("</td><td>")
          .append(fmt(spread(c.getValue(), LoadExport::cpuUs).median()))
          .append("</td></tr>\n");
    }
    return sb.append("</table>\n").toString();
  }

  private static Spread spread(List<Map<String, String>> s, Metric m) {
    return Spread.of(s.stream().map(m::of).toList());
  }

  /** A horizontal bar per contender: the median, a whisker from the lowest to highest round. */
  static String bars(String title, Map<String, List<Map<String, String>>> at, Metric m) {
    int w = 520;
    int left = 130;
    int row = 22;
    int h = 30 + row * at.size();
    double top = 0;
    Map<String, Spread> spreads = new LinkedHashMap<>();
    for (var c : at.entrySet()) {
      Spread s = spread(c.getValue(), m);
      spreads.put(c.getKey(), s);
      top = Math.max(top, s.max());
    }
    double scale = top <= 0 ? 0 : (w - left - 60) / top;
    StringBuilder sb = svg(w, h, title);
    int i = 0;
    for (var e : spreads.entrySet()) {
      int y = 24 + i * row;
      Spread s = e.getValue();
      sb.append(
          String.format(
              Locale.ROOT,
              "<text x=\"0\" y=\"%d\">%s</text><rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"14\""
                  + " fill=\"%s\"/><line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"#333\"/>"
                  + "<text x=\"%.1f\" y=\"%d\" font-size=\"12\">%s</text>",
              y + 12,
              esc(e.getKey()),
              left,
              y,
              s.median() * scale,
              COLOURS[i % COLOURS.length],
              left + s.min() * scale,
              left + s.max() * scale,
              y + 7,
              y + 7,
              left + s.max() * scale + 6,
              y + 12,
              fmt(s.median())));
      i++;
    }
    return sb.append("</svg>\n").toString();
  }

  /** One line per contender through the medians at each connection count (log-2 x axis). */
  static String curve(
      String title, Map<Integer, Map<String, List<Map<String, String>>>> byConns, Metric m) {
    int w = 520;
    int h = 260;
    int left = 60;
    int bottom = 30;
    Map<String, Map<Integer, Double>> lines = new LinkedHashMap<>();
    double top = 0;
    for (var c : byConns.entrySet()) {
      for (var k : c.getValue().entrySet()) {
        double v = spread(k.getValue(), m).median();
        lines.computeIfAbsent(k.getKey(), x -> new TreeMap<>()).put(c.getKey(), v);
        top = Math.max(top, v);
      }
    }
    List<Integer> xs = new ArrayList<>(byConns.keySet());
    double lo = Math.log(Math.max(1, xs.get(0))) / Math.log(2);
    double hi = Math.log(Math.max(2, xs.get(xs.size() - 1))) / Math.log(2);
    double span = hi - lo == 0 ? 1 : hi - lo;
    double plotW = w - left - 120;
    double plotH = h - bottom - 30;
    StringBuilder sb = svg(w, h, title);
    for (int x : xs) {
      double px = left + (Math.log(Math.max(1, x)) / Math.log(2) - lo) / span * plotW;
      sb.append(
          String.format(
              Locale.ROOT,
              "<text x=\"%.1f\" y=\"%d\" font-size=\"12\" text-anchor=\"middle\">%d</text>",
              px,
              h - 10,
              x));
    }
    sb.append(
        String.format(Locale.ROOT, "<text x=\"0\" y=\"40\" font-size=\"12\">%s</text>", fmt(top)));
    int i = 0;
    for (var line : lines.entrySet()) {
      StringBuilder pts = new StringBuilder();
      for (var p : line.getValue().entrySet()) {
        double px = left + (Math.log(Math.max(1, p.getKey())) / Math.log(2) - lo) / span * plotW;
        double py = 30 + plotH - (top == 0 ? 0 : p.getValue() / top * plotH);
        pts.append(String.format(Locale.ROOT, "%.1f,%.1f ", px, py));
      }
      String colour = COLOURS[i % COLOURS.length];
      sb.append("<polyline fill=\"none\" stroke=\"")
          .append(colour)
          .append("\" stroke-width=\"2\" points=\"")
          .append(pts.toString().trim())
          .append("\"/>")
          .append(
              String.format(
                  Locale.ROOT,
                  "<text x=\"%.1f\" y=\"%d\" fill=\"%s\" font-size=\"12\">%s</text>",
                  left + plotW + 10,
                  40 + i * 16,
                  colour,
                  esc(line.getKey())));
      i++;
    }
    return sb.append("</svg>\n").toString();
  }

  /** An SVG element of {@code w} × {@code h} whose title and first line are {@code title}. */
  private static StringBuilder svg(int w, int h, String title) {
    return new StringBuilder()
        .append(String.format(Locale.ROOT, "<svg width=\"%d\" height=\"%d\" role=\"img\">", w, h))
        .append("<title>")
        .append(esc(title))
        .append("</title><text x=\"0\" y=\"14\" font-weight=\"bold\">")
        .append(esc(title))
        .append("</text>");
  }

  private static String fmt(double v) {
    return v >= 100
        ? String.format(Locale.ROOT, "%,.0f", v)
        : String.format(Locale.ROOT, "%.2f", v);
  }

  static String esc(String s) {
    return s.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("\"", "&quot;");
  }
}
