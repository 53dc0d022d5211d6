package dev.tally.bench.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LoadExportTest {
  private static String sample(String phase, String contender, int round, int conns, long req) {
    return "phase="
        + phase
        + " workload=lookup contender="
        + contender
        + " kind=x round="
        + round
        + " conns="
        + conns
        + " delay_ms=0 requests="
        + req
        + " duration_us=2000000 connect_err=0 read_err=0 write_err=0 timeout_err=0 non2xx=0"
        + " p50_us=500 p90_us=900 p99_us=2500 max_us=9000 mean_us=600 proc_cpu_ticks=50"
        + " upstream_cpu_ticks=20 tick_hz=100 executed=0 machine_idle_pct=1";
  }

  @Test
  void theCsvHasOneRowPerSampleAndAColumnPerKey(@TempDir Path dir) throws Exception {
    Files.write(
        dir.resolve("samples.txt"),
        List.of(sample("lookup", "direct", 1, 64, 1000), sample("lookup", "tally", 1, 64, 500)),
        StandardCharsets.UTF_8);
    LoadExport.main(new String[] {dir.toString()});

    List<String> csv = Files.readAllLines(dir.resolve("samples.csv"), StandardCharsets.UTF_8);
    assertThat(csv).hasSize(3);
    assertThat(csv.get(0)).startsWith("phase,workload,contender,kind,round,conns");
    assertThat(csv.get(2)).startsWith("lookup,lookup,tally,x,1,64,0,500,");
  }

  @Test
  void theHtmlPlotsMediansWithTheirRangeAndTheScaleCurves(@TempDir Path dir) throws Exception {
    Files.write(
        dir.resolve("samples.txt"),
        List.of(
            sample("lookup", "tally", 0, 64, 1), // warm-up: not plotted
            sample("lookup", "tally", 1, 64, 1000),
            sample("lookup", "tally", 2, 64, 3000),
            sample("lookup", "tally", 3, 64, 2000),
            sample("lookup@1", "tally", 1, 1, 200),
            sample("lookup@16", "tally", 1, 16, 800),
            sample("lookup", "nginx", 1, 64, 4000)),
        StandardCharsets.UTF_8);
    Files.writeString(dir.resolve("report.md"), "| a <b> |", StandardCharsets.UTF_8);
    LoadExport.main(new String[] {dir.toString()});

    String html = Files.readString(dir.resolve("report.html"), StandardCharsets.UTF_8);
    // Median of 500, 1500 and 1000 req/s (2 s samples), the bars at the main run's 64 connections.
    assertThat(html).contains("req/s at 64 connections").contains(">1,000<");
    assertThat(html).contains("req/s vs connections").contains("<polyline");
    assertThat(html).contains("| a &lt;b&gt; |").doesNotContain("<b>");
    assertThat(html).doesNotContain("<script");
  }

  @Test
  void sizePhasesGetTheirOwnCurvesAndTheReportTheirTableAndCpuSlope(@TempDir Path dir)
      throws Exception {
    Files.write(
        dir.resolve("samples.txt"),
        List.of(
            sample("lookup", "tally", 1, 64, 1000),
            sample("effect#1024", "direct", 1, 64, 4000),
            sample("effect#1024", "nginx", 1, 64, 2000),
            sample("effect#1024", "tally", 1, 64, 1000),
            sample("effect#16384", "direct", 1, 64, 2000),
            sample("effect#16384", "nginx", 1, 64, 1000),
            // 50 ticks at 100 Hz over 250 requests: 2,000 µs per request (500 at 1024 bytes).
            sample("effect#16384", "tally", 1, 64, 250)),
        StandardCharsets.UTF_8);
    java.io.ByteArrayOutputStream md = new java.io.ByteArrayOutputStream();
    java.io.PrintStream was = System.out;
    System.setOut(new java.io.PrintStream(md, true, StandardCharsets.UTF_8));
    try {
      LoadReport.main(new String[] {dir.toString()});
    } finally {
      System.setOut(was);
    }
    String report = md.toString(StandardCharsets.UTF_8);
    assertThat(report)
        .contains("Cost by size")
        .contains("| side-effecting tools/call | 1024 | tally | 500 | 0.50 [0.50–0.50] | 500.0 |")
        .contains("| side-effecting tools/call | 16384 | tally | 125 | 0.25 [0.25–0.25] | 2000.0 |")
        // (2000 - 500) µs over 15 KiB
        .contains("tally, side-effecting tools/call: 100.00 µs of CPU per further KiB");
    Files.writeString(dir.resolve("report.md"), report, StandardCharsets.UTF_8);
    LoadExport.main(new String[] {dir.toString()});
    String html = Files.readString(dir.resolve("report.html"), StandardCharsets.UTF_8);
    assertThat(html)
        .contains("effect by size of argument and result")
        .contains("req/s vs bytes")
        .contains("process CPU µs per request vs bytes")
        .contains(">16384<");
    // The size phases are not mixed into the workload's own plots.
    assertThat(html).doesNotContain("<h2>effect#1024</h2>");
  }

  @Test
  void rateCpuAndP99AreDerivedFromTheSample() {
    Map<String, String> r = LoadReport.parse(sample("lookup", "tally", 1, 64, 1000));
    assertThat(LoadExport.rps(r)).isEqualTo(500.0);
    assertThat(LoadExport.p99ms(r)).isEqualTo(2.5);
    // 50 ticks at 100 Hz = 0.5 s of CPU over 1000 requests.
    assertThat(LoadExport.cpuUs(r)).isEqualTo(500.0);
  }
}
