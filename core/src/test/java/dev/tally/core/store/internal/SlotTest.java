package dev.tally.core.store.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.execution.Lease;
import dev.tally.core.execution.Transition;
import dev.tally.core.testing.Executions;
import dev.tally.core.testing.MutableClock;
import dev.tally.core.testing.StatePaths;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class SlotTest {
  private final MutableClock clock = MutableClock.create();

  private Execution inState(ExecutionState target) {
    Execution e =
        Executions.candidate(clock)
            .summary("{\"amount\":\"number\",\"note\":\"string(12) é\"}")
            .lease(new Lease("replica-a", clock.instant().plusSeconds(30)))
            .build();
    for (ExecutionState s : StatePaths.pathTo(target)) {
      clock.advance(Duration.ofMillis(3));
      e = e.apply(Transition.to(e, s, clock.instant()));
    }
    return e;
  }

  @Test
  void terminalRecordsArePackedAndReadBackEqual() {
    for (ExecutionState s : ExecutionState.values()) {
      if (s == ExecutionState.ACCEPTED || StatePaths.pathTo(s) == null) {
        continue;
      }
      Execution e = inState(s);
      Slot packed = Slot.of(e, new byte[] {'{', '}'});

      assertThat(packed.isPacked()).as(s.wireName()).isEqualTo(s.isTerminal());
      assertThat(packed.execution()).as(s.wireName()).isEqualTo(e);
      assertThat(packed.holdsKey(clock.instant())).isEqualTo(e.holdsKey(clock.instant()));
      assertThat(packed.pinned()).isEqualTo(ExecutionTable.isPinned(e));
      assertThat(packed.matchKey()).isEqualTo(e.matchKey());
      if (s.isTerminal()) {
        assertThat(packed.weight()).isLessThan(Slot.unpacked(e, new byte[] {'{', '}'}).weight());
      }
    }
  }

  @Test
  void aGivenDocumentIsSharedNotCopied() {
    Execution delivered = inState(ExecutionState.DELIVERED);
    byte[] doc = ExecutionBinary.pack(delivered);
    Slot slot = Slot.of(delivered, null, doc);
    assertThat(slot.packed()).isSameAs(doc);
    assertThat(slot.execution()).isEqualTo(delivered);
    assertThat(Slot.unpacked(delivered, null).isPacked()).isFalse();
  }
}
