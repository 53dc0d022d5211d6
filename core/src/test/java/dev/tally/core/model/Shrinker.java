package dev.tally.core.model;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * Shrinks a failing scenario to a minimal one: removes chunks of ops, halving the chunk size down
 * to single ops, as long as the rest still fails (delta debugging without the complement step). Ops
 * never refer to each other, so every sub-list is a scenario.
 */
final class Shrinker {
  private Shrinker() {}

  /** The smallest list found from which no single op can be removed and {@code fails} hold. */
  static List<Op> shrink(List<Op> ops, Predicate<List<Op>> fails, int maxRuns) {
    List<Op> current = new ArrayList<>(ops);
    int runs = 0;
    int chunk = Math.max(1, current.size() / 2);
    while (chunk >= 1 && runs < maxRuns) {
      boolean removed = false;
      for (int start = 0; start < current.size() && runs < maxRuns; ) {
        List<Op> candidate = new ArrayList<>(current);
        candidate.subList(start, Math.min(current.size(), start + chunk)).clear();
        runs++;
        if (!candidate.isEmpty() && fails.test(candidate)) {
          current = candidate;
          removed = true;
        } else {
          start += chunk;
        }
      }
      if (!removed) {
        chunk /= 2;
      }
    }
    for (int i = 0; i < current.size() && runs < maxRuns; i++) {
      if (!(current.get(i) instanceof Op.Call c)) {
        continue;
      }
      for (Op simpler : c.simpler()) {
        List<Op> candidate = new ArrayList<>(current);
        candidate.set(i, simpler);
        runs++;
        if (fails.test(candidate)) {
          current = candidate;
          i--; // try the next simplification of the same op
          break;
        }
      }
    }
    return current;
  }
}
