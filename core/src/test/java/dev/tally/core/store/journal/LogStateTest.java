package dev.tally.core.store.journal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.execution.Transition;
import dev.tally.core.testing.Executions;
import dev.tally.core.testing.MutableClock;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Merging records as recovery and compaction do. */
class LogStateTest {
  private final MutableClock clock = MutableClock.create();
  private final LogState state = new LogState();

  private Execution v1() {
    return Executions.candidate(clock).build();
  }

  private LogState.Entry only() {
    assertThat(state.size()).isEqualTo(1);
    return state.entries().iterator().next();
  }

  @Test
  void theHighestVersionWinsWhateverTheOrder() {
    Execution a = v1();
    Execution b = a.apply(Transition.to(a, ExecutionState.AUTHORIZED, clock.instant()));

    state.accept(new JournalEntry.Put(b, null), 100);
    state.accept(new JournalEntry.Put(a, null), 90);

    assertThat(only().execution()).isEqualTo(b);
    assertThat(only().docBytes()).isEqualTo(100);
  }

  @Test
  void resultBytesCarryOverWhileRetainedAndGoWhenNot() {
    byte[] bytes = "{\"r\":1}".getBytes(StandardCharsets.UTF_8);
    Execution a = v1();
    Execution d = a.apply(Transition.to(a, ExecutionState.DISPATCHED, clock.instant()));
    Execution c =
        d.apply(
            Transition.to(d, ExecutionState.COMPLETED, clock.instant()).withResult(bytes, false));
    Execution delivered = c.apply(Transition.to(c, ExecutionState.DELIVERED, clock.instant()));

    state.accept(new JournalEntry.Put(c, bytes), 10 + bytes.length);
    state.accept(new JournalEntry.Put(delivered, null), 10);
    assertThat(only().result()).isEqualTo(bytes);
    assertThat(only().docBytes()).isEqualTo(10);

    Execution notRetained =
        new Execution(
            delivered.id(),
            delivered.version() + 1,
            delivered.matchKey(),
            delivered.matchKind(),
            delivered.actor(),
            delivered.tool(),
            delivered.toolClass(),
            delivered.fingerprint(),
            delivered.intentScope(),
            delivered.state(),
            delivered.timeline(),
            delivered.holdUntil(),
            delivered.retainUntil(),
            null,
            null,
            null,
            new dev.tally.core.execution.ResultRef(bytes.length, false, false),
            false,
            "");
    state.accept(new JournalEntry.Put(notRetained, null), 10);
    assertThat(only().result()).isNull();
  }

  @Test
  void aPurgeRemovesTheId() {
    Execution a = v1();
    state.accept(new JournalEntry.Put(a, null), 10);
    state.accept(new JournalEntry.Purge(a.id()), 5);
    assertThat(state.size()).isZero();
  }

  @Test
  void keepsTheDocumentItIsGivenOrEncodesOne() {
    Execution a = v1();
    byte[] doc = dev.tally.core.store.internal.ExecutionBinary.pack(a);

    state.accept(new JournalEntry.Put(a, null, doc), 100);
    assertThat(only().doc()).isSameAs(doc);
    assertThat(only().version()).isEqualTo(a.version());

    Execution b = a.apply(Transition.to(a, ExecutionState.AUTHORIZED, clock.instant()));
    state.accept(new JournalEntry.Put(b, null), 100);
    assertThat(only().execution()).isEqualTo(b);
  }
}
