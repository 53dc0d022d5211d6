package dev.tally.sidecar.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code java -jar tally-sidecar.jar demo} as a newcomer runs it. */
class DemoIT {
  @TempDir Path dir;

  @Test
  void demoReplaysTheRetriedCallAndEndsWithThreeSideEffects() throws Exception {
    try (TallyProcess p =
        TallyProcess.start(dir, TallyProcess.SMALL_JVM, Map.of(), List.of("demo"))) {
      assertThat(p.awaitExit(Duration.ofSeconds(120))).as(p.output()).isZero();
      String out = p.stdout();
      Matcher lost =
          Pattern.compile("execution (act_[0-9A-Z]{26}) is completed_not_delivered").matcher(out);
      assertThat(lost.find()).as(out).isTrue();
      Matcher replayed =
          Pattern.compile("replayed from execution (act_[0-9A-Z]{26}), not executed again")
              .matcher(out);
      assertThat(replayed.find()).as(out).isTrue();
      assertThat(replayed.group(1)).isEqualTo(lost.group(1));
      List<String> counts =
          Pattern.compile("server side effects: (\\d+)")
              .matcher(out)
              .results()
              .map(r -> r.group(1))
              .toList();
      assertThat(counts).containsExactly("1", "2", "2", "3", "3", "4", "4");
      assertThat(out).contains("4 intended actions, 4 side effects");
      // Issue 18: the confirmed write, end to end, with its link printed.
      assertThat(out)
          .containsPattern(
              "confirm at http://127\\.0\\.0\\.1:\\d+/console/actions/act_\\w+ before ")
          .contains("Tally ran the call itself")
          .contains("is completed_not_delivered")
          .doesNotContain("demo-agent-");
      assertThat(p.stderr()).isEmpty();
    }
  }
}
