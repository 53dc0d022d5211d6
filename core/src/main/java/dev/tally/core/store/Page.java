package dev.tally.core.store;

import dev.tally.core.execution.Execution;
import java.util.List;

/**
 * One page of {@link ExecutionStore#list}; {@code next} is the cursor for the next page or null.
 */
public record Page(List<Execution> items, String next) {
  public Page {
    items = List.copyOf(items);
  }
}
