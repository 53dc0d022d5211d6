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
  void rateCpuAndP99AreDerivedFromTheSample() {
    Map<String, String> r = LoadReport.parse(sample("lookup", "tally", 1, 64, 1000));
    assertThat(LoadExport.rps(r)).isEqualTo(500.0);
    assertThat(LoadExport.p99ms(r)).isEqualTo(2.5);
    // 50 ticks at 100 Hz = 0.5 s of CPU over 1000 requests.
    assertThat(LoadExport.cpuUs(r)).isEqualTo(500.0);
  }
}
