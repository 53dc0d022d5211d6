package dev.tally.core.store.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.execution.Transition;
import dev.tally.core.store.Claim;
import dev.tally.core.store.StoreException;
import dev.tally.core.testing.Executions;
import dev.tally.core.testing.MutableClock;
import dev.tally.core.testing.StatePaths;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the journal store relies on beyond the store contract: change reports and replay. */
class ExecutionTableTest {
  private final MutableClock clock = MutableClock.create();
  private final ExecutionTable table = ExecutionTable.unbounded(8);

  private Executions.Builder candidate() {
    clock.advance(Duration.ofMillis(1));
    return Executions.candidate(clock);
  }

  /** The record as the state machine would have it in {@code target}, never stored. */
  private Execution inState(ExecutionState target, Executions.Builder builder) {
    Execution e = builder.build();
    for (ExecutionState s : StatePaths.pathTo(target)) {
      e = e.apply(Transition.to(e, s, clock.instant()));
    }
    return e;
  }

  private Execution dispatched() {
    Execution e = candidate().build();
    table.claim(e, clock.instant());
    e = table.transition(Transition.to(e, ExecutionState.AUTHORIZED, clock.instant())).execution();
    return table
        .transition(Transition.to(e, ExecutionState.DISPATCHED, clock.instant()))
        .execution();
  }

  @Test
  void transitionReportsTheResultBytesItKept() {
    Execution a = dispatched();
    Execution b = dispatched();
    byte[] small = {'{', '}'};

    ExecutionTable.Stored kept =
        table.transition(
            Transition.to(a, ExecutionState.COMPLETED, clock.instant()).withResult(small, false));
    ExecutionTable.Stored dropped =
        table.transition(
            Transition.to(b, ExecutionState.COMPLETED, clock.instant())
                .withResult(new byte[9], false));
    ExecutionTable.Stored none =
        table.transition(
            Transition.to(kept.execution(), ExecutionState.DELIVERED, clock.instant()));

    assertThat(kept.result()).containsExactly('{', '}');
    assertThat(kept.execution().result().retained()).isTrue();
    assertThat(dropped.result()).isNull();
    assertThat(dropped.execution().result().retained()).isFalse();
    assertThat(none.result()).isNull();
    assertThat(table.result(a.id()))
        .hasValueSatisfying(r -> assertThat(r).containsExactly('{', '}'));
  }

  @Test
  void restoreLoadsARecordAsItIsWithoutTheStateMachine() {
    Execution delivered = inState(ExecutionState.DELIVERED, candidate());

    table.restore(delivered, new byte[] {'1'});

    assertThat(table.find(delivered.id())).contains(delivered);
    assertThat(table.result(delivered.id()))
        .hasValueSatisfying(r -> assertThat(r).containsExactly('1'));
    assertThat(table.findHolder(delivered.matchKey(), clock.instant())).contains(delivered);
  }

  @Test
  void restoreWithoutBytesKeepsTheRetainedBytes() {
    Execution dispatched = dispatched();
    Execution completed =
        table
            .transition(
                Transition.to(dispatched, ExecutionState.COMPLETED, clock.instant())
                    .withResult(new byte[] {'r'}, false))
            .execution();
    Execution delivered =
        completed.apply(Transition.to(completed, ExecutionState.DELIVERED, clock.instant()));

    table.restore(delivered, null);

    assertThat(table.find(delivered.id())).contains(delivered);
    assertThat(table.result(delivered.id()))
        .hasValueSatisfying(r -> assertThat(r).containsExactly('r'));
  }

  @Test
  void replayInAnyOrderIndexesTheLaterClaimAsHolder() {
    String key = Executions.uniqueKey();
    Execution first = candidate().matchKey(key).holdFor(Duration.ofMinutes(1)).build();
    clock.advance(Duration.ofMinutes(2));
    Execution second = candidate().matchKey(key).holdFor(Duration.ofMinutes(1)).build();
    Execution firstLater =
        first.apply(Transition.to(first, ExecutionState.AUTHORIZED, clock.instant()));

    for (List<Execution> order :
        List.of(
            List.of(first, second, firstLater),
            List.of(second, first, firstLater),
            List.of(firstLater, second))) {
      ExecutionTable replayed = ExecutionTable.unbounded(8);
      order.forEach(e -> replayed.restore(e, null));

      assertThat(replayed.findHolder(key, clock.instant())).contains(second);
      Claim retry = replayed.claim(candidate().matchKey(key).build(), clock.instant());
      assertThat(retry).isEqualTo(new Claim.Existing(second));
    }
  }

  @Test
  void restoringAReleasedStateFreesTheKey() {
    Execution accepted = candidate().build();
    table.restore(accepted, null);
    table.restore(
        accepted.apply(Transition.to(accepted, ExecutionState.FAILED, clock.instant())), null);

    assertThat(table.findHolder(accepted.matchKey(), clock.instant())).isEmpty();
    assertThat(table.claim(candidate().matchKey(accepted.matchKey()).build(), clock.instant()))
        .isInstanceOf(Claim.Won.class);
  }

  @Test
  void removeDeletesWhateverTheStateAndFreesTheKey() {
    Execution held = candidate().build();
    table.claim(held, clock.instant());

    assertThat(table.remove(held.id())).contains(held);
    assertThat(table.remove(held.id())).isEmpty();
    assertThat(table.find(held.id())).isEmpty();
    assertThat(table.claim(candidate().matchKey(held.matchKey()).build(), clock.instant()))
        .isInstanceOf(Claim.Won.class);
  }

  @Test
  void purgeReturnsTheRemovedRecords() {
    Execution failed = inState(ExecutionState.FAILED, candidate().retainFor(Duration.ofMinutes(1)));
    table.restore(failed, null);
    clock.advance(Duration.ofMinutes(2));

    assertThat(table.purge(clock.instant(), 10)).containsExactly(failed);
    assertThat(table.size()).isZero();
  }

  @Test
  void forEachVisitsEveryRecordWithItsBytes() {
    Execution a = inState(ExecutionState.COMPLETED, candidate());
    Execution b = candidate().build();
    table.restore(a, new byte[] {'a'});
    table.restore(b, null);

    List<ExecutionTable.Stored> seen = new ArrayList<>();
    table.forEach(seen::add);

    assertThat(seen).hasSize(2);
    assertThat(seen)
        .anySatisfy(
            s -> {
              assertThat(s.execution()).isEqualTo(a);
              assertThat(s.result()).containsExactly('a');
            })
        .anySatisfy(
            s -> {
              assertThat(s.execution()).isEqualTo(b);
              assertThat(s.result()).isNull();
            });
  }

  @Test
  void claimNeverOverwritesARecordWithTheSameId() {
    Execution original = candidate().holdFor(Duration.ofMinutes(1)).build();
    table.claim(original, clock.instant());
    Instant later = clock.advance(Duration.ofMinutes(2));
    Execution sameId = candidate().id(original.id()).matchKey(original.matchKey()).build();

    assertThatThrownBy(() -> table.claim(sameId, later))
        .isInstanceOf(StoreException.class)
        .extracting(e -> ((StoreException) e).code())
        .isEqualTo(StoreException.Code.CORRUPT);
    assertThat(table.find(original.id())).contains(original);
  }

  @Test
  void unboundedTableTracksNoWeight() {
    table.claim(candidate().build(), clock.instant());
    assertThat(table.pinnedWeight()).isZero();
    assertThat(table.hasRoom()).isTrue();
    assertThat(ExecutionTable.isPinned(candidate().build())).isTrue();
  }

  @Test
  void boundsAreValidated() {
    assertThatThrownBy(() -> ExecutionTable.bounded(1, 0))
        .hasMessage("maxWeightBytes: 0 (expected: a positive number of bytes)");
    assertThatThrownBy(() -> ExecutionTable.unbounded(-1))
        .hasMessage("maxResultBytes: -1 (expected: zero or more bytes)");
  }

  @Test
  void evictedRecordsLeaveNoMatchKeyBehind() {
    ExecutionTable bounded = ExecutionTable.bounded(8, 64 * 1024);
    int calls = 2_000; // ~1 KiB of estimated weight each: the table keeps a few dozen
    List<Execution> delivered = new ArrayList<>();
    for (int i = 0; i < calls; i++) {
      Execution e = candidate().kind(dev.tally.core.execution.MatchKind.FINGERPRINT).build();
      bounded.claim(e, clock.instant());
      for (ExecutionState s : StatePaths.pathTo(ExecutionState.DELIVERED)) {
        e = bounded.transition(Transition.to(e, s, clock.instant())).execution();
      }
      delivered.add(e);
    }

    assertThat(bounded.size()).isLessThan(calls / 10);
    // Before the fix every evicted record's key stayed indexed: 2,000 keys for ~60 records.
    assertThat(bounded.indexedKeys()).isLessThanOrEqualTo(bounded.size());
    // Whichever records the cache chose to keep, a key is found exactly when its record is.
    int kept = 0;
    for (Execution e : delivered) {
      boolean present = bounded.find(e.id()).isPresent();
      kept += present ? 1 : 0;
      assertThat(bounded.findHolder(e.matchKey(), clock.instant()).isPresent()).isEqualTo(present);
    }
    assertThat(kept).isPositive();
  }

  @Test
  void purgeLooksAtABoundedNumberOfRecordsAndStillReachesEveryOne() {
    int longKept = ExecutionTable.PURGE_VISITS + ExecutionTable.PURGE_VISITS / 4;
    for (int i = 0; i < longKept; i++) {
      table.claim(
          candidate().holdFor(Duration.ofMillis(1)).retainFor(Duration.ofDays(100)).build(),
          clock.instant());
    }
    List<Execution> shortKept = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      Execution e =
          candidate().holdFor(Duration.ofMillis(1)).retainFor(Duration.ofMinutes(1)).build();
      table.claim(e, clock.instant());
      shortKept.add(e);
    }
    clock.advance(Duration.ofHours(1));

    // The first call looks at the oldest half of its budget and the next half after it: all kept.
    assertThat(table.purge(clock.instant(), 500)).isEmpty();
    // The second continues where the first stopped and reaches the short-lived records.
    assertThat(table.purge(clock.instant(), 500))
        .extracting(Execution::id)
        .containsExactlyInAnyOrderElementsOf(shortKept.stream().map(Execution::id).toList());
    assertThat(table.size()).isEqualTo(longKept);
    assertThat(table.purge(clock.instant(), 500)).isEmpty();
  }
}
