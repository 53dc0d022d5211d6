package dev.tally.core.mcp;

import java.util.List;

/**
 * A split batch: its elements in order, or why the whole batch is refused.
 *
 * @param elements the elements ({@code null} when refused)
 * @param error the refusal, or {@code null}
 */
public record BatchSplit(List<BatchElement> elements, TallyError error) {

  static BatchSplit refused(TallyError.Code code, String message) {
    return new BatchSplit(null, TallyError.of(code, message));
  }

  public boolean refused() {
    return error != null;
  }
}
