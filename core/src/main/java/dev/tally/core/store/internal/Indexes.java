package dev.tally.core.store.internal;

import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.store.ExecutionQuery;
import dev.tally.core.store.Page;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Indexes over the table's records: every id in id order (ULIDs sort by time) and the ids of
 * dispatched and the {@code outcome_unknown} records. Updated inside the table's atomic per-record
 * sections; readers look each id up again and skip those that moved on or went away, so a
 * momentarily stale index is harmless.
 *
 * <p>The dispatched ids are a hash set, sorted only when read: every call adds and removes its id
 * on the hot path, while the set is read only by the lease reaper and at start. (A sorted skip-list
 * set cost two ordered updates of ~20 string comparisons each per call.)
 *
 * <p>A listing by one of the states few records are in ({@code dispatched}, {@code
 * outcome_unknown}, {@code pending_confirmation}) reads that state's set, not every id: the
 * confirmation expiry sweep lists the pending calls every few seconds, and walking a table of a
 * million retained executions for the handful pending cost ~2 % of a loaded sidecar's CPU.
 */
final class Indexes {
  private final ConcurrentSkipListMap<String, ExecutionId> order = new ConcurrentSkipListMap<>();
  private final Set<ExecutionId> dispatched = ConcurrentHashMap.newKeySet();
  private final Set<ExecutionId> unknown = ConcurrentHashMap.newKeySet();
  private final Set<ExecutionId> pending = ConcurrentHashMap.newKeySet();

  /** Records {@code next}, which replaced a record in state {@code before} (null: a new one). */
  void update(ExecutionState before, Execution next) {
    if (before == null) {
      order.put(next.id().value(), next.id());
    }
    if (next.state() == ExecutionState.DISPATCHED) {
      dispatched.add(next.id());
    } else if (before == ExecutionState.DISPATCHED) {
      dispatched.remove(next.id());
    }
    if (next.state() == ExecutionState.OUTCOME_UNKNOWN) {
      unknown.add(next.id());
    } else if (before == ExecutionState.OUTCOME_UNKNOWN) {
      unknown.remove(next.id());
    }
    if (next.state() == ExecutionState.PENDING_CONFIRMATION) {
      pending.add(next.id());
    } else if (before == ExecutionState.PENDING_CONFIRMATION) {
      pending.remove(next.id());
    }
  }

  /** The set of the ids in {@code state}, for the states that have one, else null. */
  private Set<ExecutionId> few(ExecutionState state) {
    if (state == null) {
      return null;
    }
    return switch (state) {
      case DISPATCHED -> dispatched;
      case OUTCOME_UNKNOWN -> unknown;
      case PENDING_CONFIRMATION -> pending;
      default -> null;
    };
  }

  /** How many records are {@code outcome_unknown} now (for the operator's gauge). */
  int unknownCount() {
    return unknown.size();
  }

  /** Forgets a removed record. */
  void remove(ExecutionId id) {
    order.remove(id.value());
    dispatched.remove(id);
    unknown.remove(id);
    pending.remove(id);
  }

  /** Every id, oldest first (weakly consistent). */
  Iterable<ExecutionId> oldestFirst() {
    return order.values();
  }

  /** The ids after {@code id} (exclusive), oldest first (weakly consistent). */
  Iterable<ExecutionId> after(String id) {
    return order.tailMap(id, false).values();
  }

  /** Every dispatched record, oldest first. */
  List<Execution> dispatched(Function<ExecutionId, Execution> lookup) {
    return dispatched(Integer.MAX_VALUE, e -> true, lookup);
  }

  /** Dispatched records whose lease lapsed at {@code now}, oldest first, at most {@code limit}. */
  List<Execution> lapsed(Instant now, int limit, Function<ExecutionId, Execution> lookup) {
    return dispatched(limit, e -> e.leaseLapsed(now), lookup);
  }

  private List<Execution> dispatched(
      int limit, Predicate<Execution> which, Function<ExecutionId, Execution> lookup) {
    List<Execution> out = new ArrayList<>();
    for (ExecutionId id : dispatched) {
      Execution e = lookup.apply(id);
      if (e != null && e.state() == ExecutionState.DISPATCHED && which.test(e)) {
        out.add(e);
      }
    }
    out.sort(Comparator.comparing(Execution::id));
    return out.size() <= limit ? out : new ArrayList<>(out.subList(0, limit));
  }

  /**
   * A page of records matching {@code query}, newest first. One more match is looked for, so {@code
   * next} is null exactly when no further page exists.
   */
  Page list(ExecutionQuery query, Function<ExecutionId, Slot> lookup) {
    Iterable<ExecutionId> newestFirst = newestFirst(query);
    List<Execution> items = new ArrayList<>(Math.min(query.limit(), 64));
    boolean more = false;
    for (ExecutionId id : newestFirst) {
      Slot s = lookup.apply(id);
      if (s == null || (query.state() != null && s.state() != query.state())) {
        continue; // decided without unpacking the record
      }
      Execution e = s.execution();
      if (!query.matches(e)) {
        continue;
      }
      if (items.size() == query.limit()) {
        more = true;
        break;
      }
      items.add(e);
    }
    return new Page(items, more ? items.get(items.size() - 1).id().value() : null);
  }

  /** The ids a listing by {@code query} walks, newest first. */
  private Iterable<ExecutionId> newestFirst(ExecutionQuery query) {
    Set<ExecutionId> few = few(query.state());
    if (few == null) {
      Map<String, ExecutionId> all =
          query.before() == null
              ? order.descendingMap()
              : order.headMap(query.before(), false).descendingMap();
      return all.values();
    }
    List<ExecutionId> ids = new ArrayList<>(few.size());
    for (ExecutionId id : few) {
      if (query.before() == null || id.value().compareTo(query.before()) < 0) {
        ids.add(id);
      }
    }
    ids.sort(Comparator.reverseOrder());
    return ids;
  }
}
