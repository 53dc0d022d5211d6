package dev.tally.sidecar.internal.proxy;

import dev.tally.core.gate.TallyError;
import java.util.List;

/**
 * A split batch: its elements in order, or why the whole batch is refused.
 *
 * @param elements the elements ({@code null} when refused)
 * @param code the refusal's code, or {@code null}
 * @param error the refusal's message, or {@code null}
 */
record BatchSplit(List<BatchElement> elements, TallyError.Code code, String error) {

  static BatchSplit refused(TallyError.Code code, String error) {
    return new BatchSplit(null, code, error);
  }

  boolean refused() {
    return code != null;
  }
}
