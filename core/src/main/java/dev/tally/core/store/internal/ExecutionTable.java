package dev.tally.core.store.internal;

import com.github.benmanes.caffeine.cache.Cache;
import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.execution.Lease;
import dev.tally.core.execution.ResultRef;
import dev.tally.core.execution.Transition;
import dev.tally.core.store.Claim;
import dev.tally.core.store.ExecutionQuery;
import dev.tally.core.store.ExecutionStore;
import dev.tally.core.store.Page;
import dev.tally.core.store.StoreException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Consumer;

/**
 * A thread-safe, synchronous, in-memory table of executions with the semantics of {@link
 * ExecutionStore}; stores build on it and add durability and asynchrony. Internal to core's stores.
 *
 * <p>Every mutating method returns what changed, so a journal can apply a change here, append it to
 * its log and only then complete its caller; {@link #restore} and {@link #remove} replay such a log
 * and {@link #forEach} walks the table for a snapshot. Readers and waiters see a change as soon as
 * it is applied here.
 *
 * <p>Implementation note: a claim is atomic per match key ({@link ConcurrentHashMap#compute} on the
 * index {@code matchKey -> holder id}); a transition or touch is atomic per id (compute on the
 * record map). The index keeps one invariant: a record that holds its key at any instant is the
 * index entry of that key. It holds because a claim wins only when the indexed record does not
 * hold, a record that stopped holding never holds again ({@link Execution#holdsKey} only turns
 * false as states move on and time passes), and {@link #restore} picks the holder by the rule in
 * {@link #restore}'s note. Index entries of records that stopped holding are dropped when the state
 * releases the key, with the record when it is purged, removed or evicted, and replaced or removed
 * lazily when only time ran out.
 */
public final class ExecutionTable {
  private final int maxResultBytes;
  private final ConcurrentMap<ExecutionId, Slot> slots;
  private final Budget budget;
  private final ConcurrentHashMap<String, ExecutionId> holders = new ConcurrentHashMap<>();
  private final Indexes indexes = new Indexes();
  private final Waiters waiters = new Waiters();
  // Records the bounded table evicted whose match-key entry is still to be dropped: eviction runs
  // inside map computations (even inside holders.compute), where holders must not be changed.
  private final ConcurrentLinkedQueue<Slot> evicted = new ConcurrentLinkedQueue<>();
  // Where the next purge's second half continues (an id; null: from the start).
  private volatile String purgeCursor;

  /** The most records one {@link #purge} call looks at. */
  static final int PURGE_VISITS = 20_000;

  /**
   * A record and its result bytes as stored. From {@link #transition} the bytes are those this
   * change stored (null: it stored none and earlier bytes, if any, stay); from {@link #forEach}
   * they are the record's current bytes. The array is the table's own: never modify it.
   */
  public record Stored(Execution execution, byte[] result, byte[] doc) {}

  private ExecutionTable(int maxResultBytes, long maxWeightBytes, boolean retaining) {
    if (maxResultBytes < 0) {
      throw new IllegalArgumentException(
          "maxResultBytes: " + maxResultBytes + " (expected: zero or more bytes)");
    }
    this.maxResultBytes = maxResultBytes;
    if (maxWeightBytes == 0) {
      this.slots = new ConcurrentHashMap<>();
      this.budget = Budget.UNBOUNDED;
    } else if (retaining) {
      this.slots = new ConcurrentHashMap<>();
      this.budget = new RetainingBudget(maxWeightBytes);
    } else {
      if (maxWeightBytes < 0) {
        throw new IllegalArgumentException(
            "maxWeightBytes: " + maxWeightBytes + " (expected: a positive number of bytes)");
      }
      Cache<ExecutionId, Slot> cache = PinningBudget.newCache(maxWeightBytes, this::evicted);
      this.slots = cache.asMap();
      this.budget = new PinningBudget(cache, maxWeightBytes);
    }
  }

  /** A table that keeps every record until it is purged or removed (for the journal store). */
  public static ExecutionTable unbounded(int maxResultBytes) {
    return new ExecutionTable(maxResultBytes, 0, false);
  }

  /**
   * A table that keeps every record until it is purged or removed, and refuses a new record with
   * {@link StoreException.Code#UNAVAILABLE} once all records take about {@code maxWeightBytes} of
   * estimated heap (changes to held records and {@link #restore restored} ones always pass).
   */
  public static ExecutionTable retaining(int maxResultBytes, long maxWeightBytes) {
    if (maxWeightBytes <= 0) {
      throw new IllegalArgumentException(
          "maxWeightBytes: " + maxWeightBytes + " (expected: a positive number of bytes)");
    }
    return new ExecutionTable(maxResultBytes, maxWeightBytes, true);
  }

  /**
   * A table bounded to about {@code maxWeightBytes} of estimated heap that evicts only records that
   * are not {@link #isPinned pinned}, and refuses a new pinned record with {@link
   * StoreException.Code#UNAVAILABLE} when the pinned records alone would exceed the bound.
   */
  public static ExecutionTable bounded(int maxResultBytes, long maxWeightBytes) {
    if (maxWeightBytes <= 0) {
      throw new IllegalArgumentException(
          "maxWeightBytes: " + maxWeightBytes + " (expected: a positive number of bytes)");
    }
    return new ExecutionTable(maxResultBytes, maxWeightBytes, false);
  }

  /**
   * Whether a record must never be evicted: it is not terminal (in flight, or its result may still
   * be delivered), or its state lets it hold its match key. Dropping such a record could turn a
   * retry into a second action. Only {@code failed}, {@code cancelled}, {@code expired} and a
   * fingerprint-matched {@code delivered} record are unpinned (the latter holds its key only for
   * the contract's short replay window, and losing it under memory pressure costs a replay, not
   * safety: its caller already has the result); the state alone decides, so a record never goes
   * back from unpinned to pinned. A pinned record whose hold ran out by time leaves through {@link
   * #purge}.
   */
  public static boolean isPinned(Execution e) {
    return Slot.isPinned(e);
  }

  private void evicted(Slot s) {
    indexes.remove(s.id());
    evicted.add(s);
  }

  /**
   * Lets the budget evict down to its bound, then drops the match-key entries of the records it
   * evicted, so the index never outgrows the table. Called outside every map computation.
   */
  private void settle() {
    budget.settle();
    Slot s;
    while ((s = evicted.poll()) != null) {
      holders.remove(s.matchKey(), s.id());
      waiters.gone(s.id());
    }
  }

  /** The size cap for result bytes. */
  public int maxResultBytes() {
    return maxResultBytes;
  }

  /** See {@link ExecutionStore#claim}; a won claim's record is the candidate as inserted. */
  public Claim claim(Execution candidate, Instant now) {
    Objects.requireNonNull(candidate, "candidate");
    Objects.requireNonNull(now, "now");
    Claim[] out = new Claim[1];
    holders.compute(
        candidate.matchKey(),
        (key, holderId) -> {
          Slot holder = holderId == null ? null : slots.get(holderId);
          if (holder != null && holder.holdsKey(now)) {
            out[0] = new Claim.Existing(holder.execution());
            return holderId;
          }
          insert(candidate);
          out[0] = new Claim.Won(candidate);
          return candidate.id();
        });
    settle();
    return out[0];
  }

  private void insert(Execution e) {
    Slot slot = Slot.of(e, null);
    slots.compute(
        e.id(),
        (id, old) -> {
          if (old != null) {
            throw new StoreException(
                StoreException.Code.CORRUPT, "execution " + id + " already exists");
          }
          budget.admit(slot);
          indexes.update(null, e);
          return slot;
        });
  }

  /** How many records are {@code outcome_unknown} now. */
  public int unknownCount() {
    return indexes.unknownCount();
  }

  /** See {@link ExecutionStore#find}. */
  public Optional<Execution> find(ExecutionId id) {
    Slot s = slots.get(Objects.requireNonNull(id, "id"));
    return s == null ? Optional.empty() : Optional.of(s.execution());
  }

  /** See {@link ExecutionStore#findHolder}. */
  public Optional<Execution> findHolder(String matchKey, Instant now) {
    Objects.requireNonNull(now, "now");
    ExecutionId holderId = holders.get(Objects.requireNonNull(matchKey, "matchKey"));
    Slot s = holderId == null ? null : slots.get(holderId);
    return s != null && s.holdsKey(now) ? Optional.of(s.execution()) : Optional.empty();
  }

  /**
   * See {@link ExecutionStore#transition}. Result bytes over {@link #maxResultBytes()} are not kept
   * and the stored {@link ResultRef} says {@code retained=false} with the size and error flag.
   * Throws {@link StoreException} ({@code NOT_FOUND}, {@code STALE_VERSION}) or {@link
   * dev.tally.core.execution.IllegalTransitionException}; the record is then unchanged.
   */
  public Stored transition(Transition t) {
    Objects.requireNonNull(t, "transition");
    Stored[] out = new Stored[1];
    slots.compute(
        t.id(),
        (id, old) -> {
          Execution current = check(id, old, t.expectedVersion());
          byte[] bytes = old.result();
          byte[] kept = null;
          Transition effective = t.asStored(maxResultBytes, bytes != null);
          if (t.resultBytes() != null) {
            kept = effective.result().retained() ? t.resultBytes().clone() : null;
            bytes = kept;
          }
          Execution next = current.apply(effective);
          Slot slot = Slot.of(next, bytes);
          budget.replaced(old, slot);
          indexes.update(current.state(), next);
          out[0] = new Stored(next, kept, slot.packed());
          return slot;
        });
    changed(out[0].execution());
    return out[0];
  }

  /** See {@link ExecutionStore#touch}; {@code lease} may be null to clear it. */
  public Execution touch(ExecutionId id, long expectedVersion, Lease lease, boolean awaitingInput) {
    Objects.requireNonNull(id, "id");
    Execution[] out = new Execution[1];
    slots.compute(
        id,
        (k, old) -> {
          Execution next = Records.touched(check(k, old, expectedVersion), lease, awaitingInput);
          Slot slot = Slot.of(next, old.result());
          budget.replaced(old, slot);
          out[0] = next;
          return slot;
        });
    changed(out[0]);
    return out[0];
  }

  private static Execution check(ExecutionId id, Slot old, long expectedVersion) {
    if (old == null) {
      throw new StoreException(StoreException.Code.NOT_FOUND, "no execution " + id);
    }
    Execution current = old.execution();
    if (current.version() != expectedVersion) {
      throw new StoreException(
          StoreException.Code.STALE_VERSION,
          "execution " + id + " is at version " + current.version() + ", not " + expectedVersion);
    }
    return current;
  }

  private void changed(Execution next) {
    if (!Slot.mayHoldKey(next)) {
      holders.remove(next.matchKey(), next.id());
    }
    settle();
    waiters.changed(next);
  }

  /** See {@link ExecutionStore#result}; returns a copy. */
  public Optional<byte[]> result(ExecutionId id) {
    Slot s = slots.get(Objects.requireNonNull(id, "id"));
    return s == null || s.result() == null ? Optional.empty() : Optional.of(s.result().clone());
  }

  /**
   * See {@link ExecutionStore#awaitChange}. Completes on the thread that applies the change, or on
   * the JDK's shared delay scheduler when {@code maxWait} runs out; never blocks a thread.
   */
  public CompletableFuture<Optional<Execution>> awaitChange(
      ExecutionId id, long afterVersion, Duration maxWait) {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(maxWait, "maxWait");
    return waiters.await(id, afterVersion, maxWait, this::find);
  }

  /** Completes every pending {@link #awaitChange} exceptionally (the store is closing). */
  public void failWaiters(Throwable error) {
    waiters.failAll(error);
  }

  /** See {@link ExecutionStore#lapsed}: oldest (lowest id) first. */
  public List<Execution> lapsed(Instant now, int limit) {
    Objects.requireNonNull(now, "now");
    checkLimit(limit);
    return indexes.lapsed(now, limit, this::current);
  }

  /**
   * See {@link ExecutionStore#list}: newest (highest id) first; {@code next} is null at the end.
   */
  public Page list(ExecutionQuery query) {
    return indexes.list(Objects.requireNonNull(query, "query"), slots::get);
  }

  private Execution current(ExecutionId id) {
    Slot s = slots.get(id);
    return s == null ? null : s.execution();
  }

  /**
   * See {@link ExecutionStore#purge}: removes up to {@code limit} records whose retention ended
   * before {@code now} and that do not hold their key at {@code now}; returns them. One call looks
   * at no more than {@value #PURGE_VISITS} records, so its cost does not grow with the table: half
   * from the oldest end (where retention usually ends first), half further on from where the last
   * call stopped, wrapping around, so a record behind many longer-kept ones is still reached.
   */
  public List<Execution> purge(Instant now, int limit) {
    Objects.requireNonNull(now, "now");
    checkLimit(limit);
    List<Execution> removed = new ArrayList<>();
    String end = sweep(indexes.oldestFirst(), now, limit, PURGE_VISITS / 2, removed);
    if (end != null && removed.size() < limit) {
      String cursor = purgeCursor;
      Iterable<ExecutionId> from =
          cursor == null || cursor.compareTo(end) <= 0 ? indexes.after(end) : indexes.after(cursor);
      purgeCursor = sweep(from, now, limit, PURGE_VISITS / 2, removed);
    }
    if (!removed.isEmpty()) {
      settle();
    }
    return removed;
  }

  /**
   * Removes purgeable records among at most {@code visits} ids (at least one, while {@code removed}
   * is below {@code limit}); returns the last id visited, or null when the ids ran out.
   */
  private String sweep(
      Iterable<ExecutionId> ids, Instant now, int limit, int visits, List<Execution> removed) {
    int seen = 0;
    String last = null;
    for (ExecutionId id : ids) {
      if (removed.size() >= limit || seen >= visits) {
        return last;
      }
      seen++;
      last = id.value();
      Slot s = slots.get(id);
      if (s != null && s.purgeable(now)) {
        removeIf(id, slot -> slot.purgeable(now)).ifPresent(removed::add);
      }
    }
    return null;
  }

  private static void checkLimit(int limit) {
    if (limit < 0) {
      throw new IllegalArgumentException("limit: " + limit + " (expected: zero or more)");
    }
  }

  /**
   * Loads a record as it is, without a state-machine or version check, replacing any record with
   * its id; for replaying a journal. {@code resultBytes} null keeps the bytes already stored for
   * the id when {@code e}'s result says they are retained.
   *
   * <p>Implementation note: records replayed in any order index the right holder. If two records of
   * one key can hold it by state, the later claim was made when the earlier one no longer held by
   * time, so the earlier one's {@code holdUntil} lies before the later one's claim and thus before
   * its {@code holdUntil}: the record with the later {@code holdUntil} is the holder.
   */
  public void restore(Execution e, byte[] resultBytes) {
    restore(e, resultBytes, null);
  }

  /**
   * As {@link #restore(Execution, byte[])}; a terminal record is kept packed in {@code doc} when it
   * is given (its {@link ExecutionBinary} document, shared with whoever passed it).
   */
  public void restore(Execution e, byte[] resultBytes, byte[] doc) {
    restoreOwned(e, resultBytes == null ? null : resultBytes.clone(), doc);
  }

  /**
   * As {@link #restore(Execution, byte[], byte[])}, but keeps {@code resultBytes} itself instead of
   * a copy: the caller hands it over and never modifies it (a journal's recovered state shares its
   * arrays with the table, so a restart holds each result once, as the running store did).
   */
  public void restoreOwned(Execution e, byte[] resultBytes, byte[] doc) {
    Objects.requireNonNull(e, "execution");
    slots.compute(
        e.id(),
        (id, old) -> {
          byte[] bytes =
              resultBytes != null
                  ? resultBytes
                  : old != null && e.result() != null && e.result().retained()
                      ? old.result()
                      : null;
          Slot slot = Slot.of(e, bytes, doc);
          budget.replaced(old, slot);
          indexes.update(old == null ? null : old.state(), e);
          return slot;
        });
    holders.compute(e.matchKey(), (key, current) -> holderAfterRestore(e, current));
    settle();
    waiters.changed(e);
  }

  private ExecutionId holderAfterRestore(Execution e, ExecutionId current) {
    if (!Slot.mayHoldKey(e)) {
      return e.id().equals(current) ? null : current;
    }
    if (current == null || current.equals(e.id())) {
      return e.id();
    }
    Slot other = slots.get(current);
    if (other == null || other.state().releasesKey()) {
      return e.id();
    }
    int c = e.holdUntil().compareTo(other.holdUntil());
    return c > 0 || (c == 0 && e.id().compareTo(current) > 0) ? e.id() : current;
  }

  /** Removes the record with this id, whatever its state (for replaying a purge); returns it. */
  public Optional<Execution> remove(ExecutionId id) {
    Objects.requireNonNull(id, "id");
    Optional<Execution> removed = removeIf(id, slot -> true);
    settle();
    return removed;
  }

  private Optional<Execution> removeIf(
      ExecutionId id, java.util.function.Predicate<Slot> condition) {
    Execution[] out = new Execution[1];
    slots.computeIfPresent(
        id,
        (k, old) -> {
          if (!condition.test(old)) {
            return old;
          }
          budget.replaced(old, null);
          indexes.remove(old.id());
          out[0] = old.execution();
          return null;
        });
    if (out[0] == null) {
      return Optional.empty();
    }
    holders.remove(out[0].matchKey(), id);
    waiters.gone(id);
    return Optional.of(out[0]);
  }

  /** Every dispatched record (weakly consistent), without unpacking the others. */
  public List<Execution> dispatched() {
    return indexes.dispatched(this::current);
  }

  /** Calls {@code action} for every record with its current result bytes (weakly consistent). */
  public void forEach(Consumer<Stored> action) {
    for (Slot s : slots.values()) {
      action.accept(new Stored(s.execution(), s.result(), s.packed()));
    }
  }

  /** How many match keys the table indexes (at most one per record it holds, once settled). */
  long indexedKeys() {
    return holders.size();
  }

  /** How many records the table holds (an estimate while it changes). */
  public long size() {
    return slots.size();
  }

  /** Whether a typical new record would be admitted now (always, for an unbounded table). */
  public boolean hasRoom() {
    return budget.hasRoom();
  }

  /**
   * Estimated bytes held by {@link #isPinned pinned} records (by every record, for a retaining
   * table; zero for an unbounded one).
   */
  public long pinnedWeight() {
    return budget.pinnedWeight();
  }

  /** Estimated bytes held by evictable records (zero for an unbounded table). */
  public long evictableWeight() {
    return budget.evictableWeight();
  }
}
