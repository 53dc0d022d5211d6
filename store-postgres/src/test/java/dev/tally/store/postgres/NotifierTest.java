package dev.tally.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.core.execution.ExecutionState;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;

class NotifierTest {
  @Test
  void changesOfRecordsWithoutAnOutcomeWakeWaiters() {
    for (ExecutionState s :
        EnumSet.of(
            ExecutionState.ACCEPTED,
            ExecutionState.AUTHORIZED,
            ExecutionState.PENDING_CONFIRMATION,
            ExecutionState.DISPATCHED,
            ExecutionState.OUTCOME_UNKNOWN)) {
      assertThat(Notifier.wakesWaiters(s)).as(s.wireName()).isTrue();
    }
  }

  @Test
  void changesOfRecordsWithAResultOrInAFinalStateWakeNobody() {
    for (ExecutionState s :
        EnumSet.of(
            ExecutionState.COMPLETED,
            ExecutionState.COMPLETED_NOT_DELIVERED,
            ExecutionState.DELIVERED,
            ExecutionState.FAILED,
            ExecutionState.REJECTED,
            ExecutionState.CANCELLED,
            ExecutionState.EXPIRED)) {
      assertThat(Notifier.wakesWaiters(s)).as(s.wireName()).isFalse();
    }
  }
}
