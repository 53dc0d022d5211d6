package dev.tally.sidecar.it;

import dev.tally.sidecar.it.ConformanceSuite.Check;
import dev.tally.sidecar.it.ConformanceSuite.Run;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * Two conformance runs of the same suite compared check by check: a direct run against a server and
 * a run through the sidecar in front of an identical one. Checks are paired by scenario, id and
 * occurrence; only verdicts count (not {@code INFO} log entries).
 */
final class ConformanceComparison {
  private final Run direct;
  private final Run sidecar;
  private final List<Pair> pairs = new ArrayList<>();

  /** One check in both runs; a status is {@code null} when that run lacks the check. */
  record Pair(String scenario, String id, String direct, String sidecar) {
    /** {@code scenario/id}, the key the test's documented lists use. */
    String key() {
      return scenario + "/" + id;
    }

    boolean worse() {
      return rank(sidecar) < rank(direct);
    }

    boolean better() {
      return rank(sidecar) > rank(direct);
    }
  }

  private ConformanceComparison(Run direct, Run sidecar) {
    this.direct = direct;
    this.sidecar = sidecar;
    TreeSet<String> scenarios = new TreeSet<>(direct.scenarios().keySet());
    scenarios.addAll(sidecar.scenarios().keySet());
    for (String s : scenarios) {
      List<Check> d = verdicts(direct, s);
      List<Check> v = verdicts(sidecar, s);
      Map<String, Integer> seen = new HashMap<>();
      for (Check c : d) {
        int n = seen.merge(c.id(), 1, Integer::sum);
        Check other = nth(v, c.id(), n);
        pairs.add(new Pair(s, c.id(), c.status(), other == null ? null : other.status()));
      }
      Map<String, Integer> seenSidecar = new HashMap<>();
      for (Check c : v) {
        int n = seenSidecar.merge(c.id(), 1, Integer::sum);
        if (nth(d, c.id(), n) == null) {
          pairs.add(new Pair(s, c.id(), null, c.status()));
        }
      }
    }
  }

  static ConformanceComparison of(Run direct, Run sidecar) {
    return new ConformanceComparison(direct, sidecar);
  }

  /** Every paired check. */
  List<Pair> pairs() {
    return pairs;
  }

  /** Checks whose status through the sidecar is worse than directly (or missing). */
  List<Pair> regressions() {
    return pairs.stream().filter(Pair::worse).toList();
  }

  /** Checks whose status through the sidecar is better than directly. */
  List<Pair> improvements() {
    return pairs.stream().filter(Pair::better).toList();
  }

  /**
   * Order of verdicts: a pass above a skip above a warning above a failure above a missing check.
   */
  static int rank(String status) {
    if (status == null) {
      return -1;
    }
    return switch (status) {
      case "SUCCESS" -> 3;
      case "SKIPPED" -> 2;
      case "WARNING" -> 1;
      default -> 0;
    };
  }

  /** Per scenario: the verdict counts of each run, and every check whose status differs. */
  String table() {
    StringBuilder b = new StringBuilder();
    b.append(
        String.format(
            Locale.ROOT, "%-32s %-22s %-22s%n", "scenario", direct.label(), sidecar.label()));
    TreeSet<String> scenarios = new TreeSet<>(direct.scenarios().keySet());
    scenarios.addAll(sidecar.scenarios().keySet());
    for (String s : scenarios) {
      b.append(
          String.format(
              Locale.ROOT, "%-32s %-22s %-22s%n", s, summary(direct, s), summary(sidecar, s)));
      for (Pair p : pairs) {
        if (p.scenario().equals(s) && rank(p.direct()) != rank(p.sidecar())) {
          b.append(
              String.format(
                  Locale.ROOT,
                  "    %-28s %-22s %-22s%n",
                  p.id(),
                  String.valueOf(p.direct()),
                  String.valueOf(p.sidecar())));
        }
      }
    }
    return b.toString();
  }

  private static String summary(Run run, String scenario) {
    List<Check> checks = run.scenarios().get(scenario);
    if (checks == null) {
      return "(not run)";
    }
    Map<String, Integer> n = new HashMap<>();
    checks.stream().filter(Check::isVerdict).forEach(c -> n.merge(c.status(), 1, Integer::sum));
    List<String> parts = new ArrayList<>();
    for (String status : List.of("SUCCESS", "WARNING", "SKIPPED", "FAILURE")) {
      if (n.containsKey(status)) {
        parts.add(n.get(status) + " " + status.toLowerCase(Locale.ROOT));
      }
    }
    return parts.isEmpty() ? "info only" : String.join(", ", parts);
  }

  private static List<Check> verdicts(Run run, String scenario) {
    return run.scenarios().getOrDefault(scenario, List.of()).stream()
        .filter(Check::isVerdict)
        .toList();
  }

  private static Check nth(List<Check> checks, String id, int n) {
    int seen = 0;
    for (Check c : checks) {
      if (c.id().equals(id) && ++seen == n) {
        return c;
      }
    }
    return null;
  }
}
