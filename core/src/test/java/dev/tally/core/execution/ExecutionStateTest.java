package dev.tally.core.execution;

import static dev.tally.core.execution.ExecutionState.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ExecutionStateTest {
  /** ARCHITECTURE.md §5, plus the three arrows documented on {@link ExecutionState}. */
  static final Map<ExecutionState, Set<ExecutionState>> LEGAL =
      Map.ofEntries(
          Map.entry(
              ACCEPTED, EnumSet.of(AUTHORIZED, REJECTED, FAILED, DISPATCHED, PENDING_CONFIRMATION)),
          Map.entry(AUTHORIZED, EnumSet.of(DISPATCHED, PENDING_CONFIRMATION, FAILED)),
          Map.entry(
              PENDING_CONFIRMATION,
              EnumSet.of(PENDING_CONFIRMATION, AUTHORIZED, CANCELLED, EXPIRED, REJECTED)),
          Map.entry(DISPATCHED, EnumSet.of(COMPLETED, FAILED, OUTCOME_UNKNOWN)),
          Map.entry(COMPLETED, EnumSet.of(DELIVERED, COMPLETED_NOT_DELIVERED)),
          Map.entry(COMPLETED_NOT_DELIVERED, EnumSet.of(DELIVERED)),
          Map.entry(OUTCOME_UNKNOWN, EnumSet.of(COMPLETED, FAILED, DISPATCHED)),
          Map.entry(DELIVERED, EnumSet.noneOf(ExecutionState.class)),
          Map.entry(FAILED, EnumSet.noneOf(ExecutionState.class)),
          Map.entry(REJECTED, EnumSet.noneOf(ExecutionState.class)),
          Map.entry(CANCELLED, EnumSet.noneOf(ExecutionState.class)),
          Map.entry(EXPIRED, EnumSet.noneOf(ExecutionState.class)));

  @Test
  void everyPairIsLegalExactlyWhenTheDesignSaysSo() {
    for (ExecutionState from : values()) {
      for (ExecutionState to : values()) {
        boolean legal = LEGAL.get(from).contains(to);
        assertThat(from.canTransitionTo(to)).as(from + " -> " + to).isEqualTo(legal);
        if (!legal) {
          assertThatThrownBy(() -> from.checkTransitionTo(to))
              .isInstanceOf(IllegalTransitionException.class)
              .hasMessageContaining(from.wireName())
              .hasMessageContaining(to.wireName());
        }
      }
    }
  }

  @Test
  void onlyFailureLikeStatesReleaseTheKeyAndOnlyResultStatesReplay() {
    assertThat(EnumSet.allOf(ExecutionState.class).stream().filter(ExecutionState::releasesKey))
        .containsExactlyInAnyOrder(FAILED);
    assertThat(EnumSet.allOf(ExecutionState.class).stream().filter(ExecutionState::hasResult))
        .containsExactlyInAnyOrder(COMPLETED, DELIVERED, COMPLETED_NOT_DELIVERED);
    assertThat(OUTCOME_UNKNOWN.mayHaveEffect()).isTrue();
    assertThat(ACCEPTED.mayHaveEffect()).isFalse();
  }

  @Test
  void wireNamesRoundTrip() {
    for (ExecutionState s : values()) {
      assertThat(ExecutionState.fromWireName(s.wireName())).isEqualTo(s);
    }
    assertThat(COMPLETED_NOT_DELIVERED.wireName()).isEqualTo("completed_not_delivered");
    assertThatThrownBy(() -> ExecutionState.fromWireName("done")).hasMessageContaining("done");
  }
}
