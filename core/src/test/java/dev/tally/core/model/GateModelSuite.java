package dev.tally.core.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The model-based test of the gate (issue 22), bound once per store: seeded random scenarios of
 * calls, retries, identical calls of other actors, calls racing a running one, every upstream
 * answer and its absence, client disconnects before and after the answer, cancellations, store
 * faults, crashes with a reopen of the store, key rotations, lease rounds and clock advances across
 * every window, run through the real gate and call pipeline ({@link ModelRun}) and checked after
 * every op against a {@link ReferenceModel} and the {@link Invariants}: at most one side effect per
 * intent inside its window, no result shown to another actor, argument bytes unchanged upstream,
 * every answered call's state durable, and every decision the model's.
 *
 * <p>Even seeds resolve actors from a trusted header, odd seeds hash bearer tokens (the production
 * default). Calls reach either of two gates on the store (replicas). A failing seed is shrunk to a
 * minimal op list, which the failure prints with what each op got, and how to replay it. What it
 * found is kept as minimal scenarios in {@code GateModelFindingsTest}.
 *
 * <p>Bindings: {@code MemoryGateModelTest} and {@code JournalGateModelTest} (core, surefire),
 * {@code PostgresGateModelIT} (store-postgres, failsafe, a real PostgreSQL).
 *
 * <p>How much runs (system properties, passed through by Maven's {@code -D}):
 *
 * <ul>
 *   <li>by default, seeds {@code 0, 1, 2, ...} until {@value #DEFAULT_SEEDS} ran or {@value
 *       #DEFAULT_SECONDS} s passed, whichever comes first; the test prints how many ran;
 *   <li>{@code -Dtally.model.seeds=100000}: that many seeds, with no time bound unless {@code
 *       -Dtally.model.seconds=N} sets one; {@code -Dtally.model.firstSeed=N} starts elsewhere;
 *   <li>{@code -Dtally.model.seed=N}: only seed N (to replay a failure).
 * </ul>
 *
 * For example {@code ./mvnw -q -o -pl core -am verify -Dtest=JournalGateModelTest
 * -Dsurefire.failIfNoSpecifiedTests=false -Djacoco.skip=true -Dtally.model.seeds=100000}, or for
 * PostgreSQL {@code ./mvnw -q -o -pl core,store-postgres -am verify -Dtest=none
 * -Dit.test=PostgresGateModelIT -Dsurefire.failIfNoSpecifiedTests=false
 * -Dfailsafe.failIfNoSpecifiedTests=false -Djacoco.skip=true -Dtally.model.seed=17}.
 */
public abstract class GateModelSuite {
  static final int DEFAULT_SEEDS = 3000;
  static final int DEFAULT_SECONDS = 60;

  /** Shrinking re-runs the scenario at most this many times. */
  private static final int MAX_SHRINK_RUNS = 400;

  /** The store under test. */
  protected abstract ModelStores stores();

  /** A short name of the store, for reports. */
  protected abstract String storeName();

  @Test
  void theGateKeepsEveryInvariantOnRandomScenarios() throws Exception {
    Long only = Long.getLong("tally.model.seed");
    long first = only != null ? only : Long.getLong("tally.model.firstSeed", 0L);
    String seedsProperty = System.getProperty("tally.model.seeds");
    long seeds =
        only != null ? 1 : seedsProperty != null ? Long.parseLong(seedsProperty) : DEFAULT_SEEDS;
    Long seconds = Long.getLong("tally.model.seconds");
    Duration budget =
        seconds != null
            ? Duration.ofSeconds(seconds)
            : seedsProperty != null || only != null ? null : Duration.ofSeconds(DEFAULT_SECONDS);
    long start = System.nanoTime();
    Map<String, Long> counts = new TreeMap<>();
    long ran = 0;
    long ops = 0;
    for (long seed = first; seed < first + seeds; seed++) {
      if (budget != null && System.nanoTime() - start > budget.toNanos()) {
        break;
      }
      List<Op> scenario = OpGenerator.scenario(seed, OpGenerator.modeOf(seed));
      Failure f = runOnce(seed, scenario, counts);
      if (f != null) {
        throw new AssertionError(report(seed, scenario, f), null);
      }
      ran++;
      ops += scenario.size();
    }
    double took = (System.nanoTime() - start) / 1e9;
    System.out.printf(
        "gate model on %s: %d seeds from %d (%d ops) in %.1f s%s; %s%n",
        storeName(),
        ran,
        first,
        ops,
        took,
        budget == null ? "" : " (budget " + budget.toSeconds() + " s, " + seeds + " seeds)",
        counts);
    assertThat(ran).isPositive();
  }

  /** Why one run failed: the violation (or unexpected error) and what each op got. */
  private record Failure(String invariant, String message, List<String> log) {}

  private Failure runOnce(long seed, List<Op> scenario, Map<String, Long> counts) throws Exception {
    ModelRun run = new ModelRun(stores(), OpGenerator.modeOf(seed));
    try {
      run.run(scenario);
      if (counts != null) {
        run.counts().forEach((k, v) -> counts.merge(k, (long) v, Long::sum));
      }
      return null;
    } catch (Violation v) {
      return new Failure(v.invariant(), v.getMessage(), List.copyOf(run.log()));
    } catch (RuntimeException | AssertionError e) {
      return new Failure("error", e.toString(), List.copyOf(run.log()));
    } finally {
      run.close();
    }
  }

  private String report(long seed, List<Op> scenario, Failure f) throws Exception {
    Failure[] last = {f};
    List<Op> minimal =
        Shrinker.shrink(
            scenario,
            candidate -> {
              try {
                Failure g = runOnce(seed, candidate, null);
                if (g != null && g.invariant().equals(f.invariant())) {
                  last[0] = g;
                  return true;
                }
                return false;
              } catch (Exception e) {
                return false;
              }
            },
            MAX_SHRINK_RUNS);
    if (minimal.size() == scenario.size()) {
      last[0] = f;
    }
    StringBuilder b = new StringBuilder();
    b.append("gate model on ")
        .append(storeName())
        .append(": seed ")
        .append(seed)
        .append(" (actors: ")
        .append(OpGenerator.modeOf(seed).wireName())
        .append(") breaks ")
        .append(last[0].message())
        .append("\nminimal reproduction (")
        .append(minimal.size())
        .append(" of ")
        .append(scenario.size())
        .append(" ops), with what each op got:\n");
    for (String line : last[0].log()) {
      b.append("  ").append(line).append('\n');
    }
    b.append("replay with -Dtally.model.seed=").append(seed);
    return b.toString();
  }
}
