package dev.tally.core.store;

import dev.tally.core.execution.ExecutionState;

/**
 * A filter for {@link ExecutionStore#list}. {@code null} fields match anything. Paging is by {@code
 * before}: the page holds records with ids strictly lower than it (ids sort by time).
 */
public record ExecutionQuery(
    ExecutionState state, String tool, String actor, String before, int limit) {
  public static final int MAX_LIMIT = 500;

  public ExecutionQuery {
    if (limit <= 0 || limit > MAX_LIMIT) {
      throw new IllegalArgumentException("limit: " + limit + " (expected: 1.." + MAX_LIMIT + ")");
    }
  }

  public boolean matches(dev.tally.core.execution.Execution e) {
    return (state == null || e.state() == state)
        && (tool == null || e.tool().equals(tool))
        && (actor == null || e.actor().equals(actor))
        && (before == null || e.id().value().compareTo(before) < 0);
  }
}
