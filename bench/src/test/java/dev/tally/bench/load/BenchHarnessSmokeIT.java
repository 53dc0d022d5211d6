package dev.tally.bench.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The CI smoke of the load harness (issue 20): {@code bench/run --quick} with two workloads against
 * direct, nginx and a memory-store sidecar, about a minute. Numbers are not asserted, only that the
 * harness ran every contender, that the side-effecting workload executed each answered call (the
 * harness's own check) and that it wrote its CSV and HTML report. Needs wrk and nginx ({@code
 * .ci/run} installs them; {@code run.sh} installs them itself when it can) and the jars this build
 * packaged.
 */
class BenchHarnessSmokeIT {
  @Test
  void aQuickRunOfTheHarnessWritesItsReports() throws Exception {
    Path root = Path.of("..").toAbsolutePath().normalize();
    assertThat(root.resolve("sidecar/target/tally-sidecar.jar"))
        .as("the sidecar jar of this build")
        .exists();
    Path out = Path.of("target/bench-smoke").toAbsolutePath();
    int base;
    try (ServerSocket s = new ServerSocket(0)) {
      base = s.getLocalPort();
    }
    // run.sh uses base .. base+~20; stay below the ephemeral range's end.
    base = Math.min(base, 60000);
    ProcessBuilder pb =
        new ProcessBuilder(
                root.resolve("bench/run").toString(),
                "--quick",
                "--workloads",
                "lookup,effect",
                "--sizes",
                "1024,4096",
                "--contenders",
                "tally=memory",
                "--out",
                out.toString())
            .directory(root.toFile())
            .redirectErrorStream(true)
            .redirectOutput(out.resolveSibling("bench-smoke.log").toFile());
    pb.environment().put("PORT_BASE", Integer.toString(base));
    pb.environment().put("SIDECAR_JVM", "-Xms256m -Xmx256m");
    Process p = pb.start();
    boolean ended = p.waitFor(240, TimeUnit.SECONDS);
    if (!ended) {
      p.descendants().forEach(ProcessHandle::destroy);
      p.destroy();
      p.waitFor(20, TimeUnit.SECONDS);
    }
    String log = Files.readString(out.resolveSibling("bench-smoke.log"), StandardCharsets.UTF_8);
    assertThat(ended).as("the smoke run ended within 240 s; its log:\n%s", log).isTrue();
    assertThat(p.exitValue()).as("exit status; log:\n%s", log).isZero();

    List<String> csv = Files.readAllLines(out.resolve("samples.csv"), StandardCharsets.UTF_8);
    String all = String.join("\n", csv);
    for (String c : new String[] {"direct", "nginx", "tally"}) {
      assertThat(all).as("samples of %s", c).contains("," + c + ",");
    }
    assertThat(all).contains("effect,effect,tally");
    String html = Files.readString(out.resolve("report.html"), StandardCharsets.UTF_8);
    assertThat(html).contains("<svg").contains("effect");
    assertThat(all).contains("effect#4096,effect,tally");
    assertThat(html).contains("effect by size of argument and result");
    String md = Files.readString(out.resolve("report.md"), StandardCharsets.UTF_8);
    assertThat(md).contains("Cost by size").contains("µs of CPU per further KiB");
  }
}
