package dev.tally.core.testing;

/**
 * How long each Jazzer target fuzzes in {@code ./mvnw verify} (one JVM per target, the {@code fuzz}
 * surefire execution of core and sidecar); a longer run overrides it from the command line, see
 * {@code core/src/test/resources/fuzz/README.md}.
 */
public final class FuzzBudget {
  /** The fixed budget per target in CI: five targets, about 50 s of fuzzing in all. */
  public static final String CI = "10s";

  private FuzzBudget() {}
}
