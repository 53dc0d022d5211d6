package dev.tally.core.testing;

import dev.tally.core.execution.ExecutionState;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/** Walks of the execution state machine (ARCHITECTURE.md §5), derived from the enum itself. */
public final class StatePaths {
  private StatePaths() {}

  /** One legal transition. */
  public record Edge(ExecutionState from, ExecutionState to) {}

  /** Every legal transition. */
  public static List<Edge> legalEdges() {
    List<Edge> edges = new ArrayList<>();
    for (ExecutionState from : ExecutionState.values()) {
      for (ExecutionState to : ExecutionState.values()) {
        if (from.canTransitionTo(to)) {
          edges.add(new Edge(from, to));
        }
      }
    }
    return edges;
  }

  /**
   * The states after {@code accepted} on a shortest legal path from {@code accepted} to {@code
   * target} (empty for {@code accepted} itself).
   */
  public static List<ExecutionState> pathTo(ExecutionState target) {
    Map<ExecutionState, ExecutionState> previous = new EnumMap<>(ExecutionState.class);
    ArrayDeque<ExecutionState> queue = new ArrayDeque<>();
    queue.add(ExecutionState.ACCEPTED);
    previous.put(ExecutionState.ACCEPTED, ExecutionState.ACCEPTED);
    while (!queue.isEmpty()) {
      ExecutionState s = queue.poll();
      for (ExecutionState n : ExecutionState.values()) {
        if (s.canTransitionTo(n) && !previous.containsKey(n)) {
          previous.put(n, s);
          queue.add(n);
        }
      }
    }
    if (!previous.containsKey(target)) {
      throw new IllegalArgumentException("unreachable state " + target);
    }
    List<ExecutionState> path = new ArrayList<>();
    for (ExecutionState s = target; s != ExecutionState.ACCEPTED; s = previous.get(s)) {
      path.add(s);
    }
    Collections.reverse(path);
    return path;
  }
}
