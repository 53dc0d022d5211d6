package dev.tally.sidecar.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.sidecar.it.ConformanceComparison.Pair;
import dev.tally.sidecar.it.ConformanceSuite.Check;
import dev.tally.sidecar.it.ConformanceSuite.Run;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConformanceComparisonTest {
  private static Check check(String id, String status) {
    return new Check(id, status, "", null);
  }

  private static Run run(String label, Map<String, List<Check>> scenarios) {
    return new Run(label, 0, "", scenarios);
  }

  @Test
  void aPassThatBecomesAWarningAFailureOrGoesMissingIsARegression() {
    Run direct =
        run(
            "direct",
            Map.of(
                "a", List.of(check("a1", "SUCCESS"), check("a2", "SUCCESS")),
                "b", List.of(check("b1", "SUCCESS")),
                "c", List.of(check("c1", "SUCCESS"))));
    Run via =
        run(
            "via",
            Map.of(
                "a", List.of(check("a1", "WARNING"), check("a2", "SUCCESS")),
                "b", List.of(check("b1", "FAILURE"))));

    assertThat(ConformanceComparison.of(direct, via).regressions())
        .containsExactly(
            new Pair("a", "a1", "SUCCESS", "WARNING"),
            new Pair("b", "b1", "SUCCESS", "FAILURE"),
            new Pair("c", "c1", "SUCCESS", null));
  }

  @Test
  void infoEntriesAreNotVerdictsAndRepeatedIdsPairInOrder() {
    Run direct =
        run(
            "direct",
            Map.of(
                "s",
                List.of(
                    check("event", "INFO"),
                    check("event", "FAILURE"),
                    check("x", "SUCCESS"),
                    check("x", "WARNING"))));
    Run via =
        run(
            "via",
            Map.of(
                "s",
                List.of(check("x", "SUCCESS"), check("x", "SUCCESS"), check("event", "FAILURE"))));

    ConformanceComparison cmp = ConformanceComparison.of(direct, via);
    assertThat(cmp.pairs())
        .containsExactly(
            new Pair("s", "event", "FAILURE", "FAILURE"),
            new Pair("s", "x", "SUCCESS", "SUCCESS"),
            new Pair("s", "x", "WARNING", "SUCCESS"));
    assertThat(cmp.regressions()).isEmpty();
    assertThat(cmp.improvements()).containsExactly(new Pair("s", "x", "WARNING", "SUCCESS"));
    assertThat(cmp.table()).contains("s ").contains("1 success, 1 warning, 1 failure");
  }

  @Test
  void aCheckOnlyTheSidecarRunHasIsNoRegression() {
    Run direct = run("direct", Map.of("s", List.of(check("x", "SUCCESS"))));
    Run via = run("via", Map.of("s", List.of(check("x", "SUCCESS"), check("y", "WARNING"))));

    ConformanceComparison cmp = ConformanceComparison.of(direct, via);
    assertThat(cmp.regressions()).isEmpty();
    assertThat(cmp.pairs()).contains(new Pair("s", "y", null, "WARNING"));
  }
}
