package dev.tally.core.store.internal;

import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.execution.MatchKind;
import dev.tally.core.execution.RpcError;
import java.time.Instant;

/**
 * One stored execution with its retained result bytes, the estimated memory it takes and whether it
 * must never be evicted. Immutable; a change replaces the slot.
 *
 * <p>A record in a terminal state can be kept <em>packed</em>: as its {@link ExecutionBinary}
 * document (one array) instead of some twenty objects, with only what the table's hot paths ask
 * (state, hold, retention, key) beside it. Terminal records are most of a table under load and are
 * read only when a retry or the admin API asks for one; packing halves the objects a collector has
 * to trace and copy for them (about 15 instead of 30 per record, counting map and index entries)
 * and saves about a tenth of their bytes (heap histograms under load: 1.12 KB per record, was
 * 1.23). The record is unpacked on each read.
 */
final class Slot {
  /** Fixed cost of an unpacked record, its timeline, indexes and map entries (an estimate). */
  private static final int BASE_WEIGHT = 640;

  /**
   * Fixed cost of a packed record: the slot, its instants, id, indexes and map entries and the
   * array's header (its match key and document are added).
   */
  private static final int PACKED_BASE_WEIGHT = 380;

  private final Execution execution; // null when packed
  private final byte[] packed; // null when not packed
  private final ExecutionId id;
  private final String matchKey;
  private final ExecutionState state;
  private final Instant holdUntil;
  private final Instant retainUntil;
  private final byte[] result;
  private final int weight;
  private final boolean pinned;

  private Slot(Execution e, byte[] packed, byte[] result, int weight) {
    this.execution = packed == null ? e : null;
    this.packed = packed;
    this.id = e.id();
    this.matchKey = e.matchKey();
    this.state = e.state();
    this.holdUntil = e.holdUntil();
    this.retainUntil = e.retainUntil();
    this.result = result;
    this.weight = weight;
    this.pinned = isPinned(e);
  }

  /** The record, packed when its state is terminal. */
  static Slot of(Execution execution, byte[] result) {
    return of(execution, result, null);
  }

  /**
   * As {@link #of(Execution, byte[])}, packed into {@code doc} when given: the record's {@link
   * ExecutionBinary} document that someone else keeps too (the journal's durable state).
   */
  static Slot of(Execution execution, byte[] result, byte[] doc) {
    if (!execution.state().isTerminal()) {
      return unpacked(execution, result);
    }
    if (doc == null) {
      doc = ExecutionBinary.pack(execution);
    }
    long bytes =
        PACKED_BASE_WEIGHT + 2L * execution.matchKey().length() + doc.length + resultWeight(result);
    return new Slot(execution, doc, result, (int) Math.min(Integer.MAX_VALUE, bytes));
  }

  /** The record as it is, whatever its state. */
  static Slot unpacked(Execution execution, byte[] result) {
    return new Slot(execution, null, result, estimate(execution, result));
  }

  /** The record (unpacked anew from a packed slot). */
  Execution execution() {
    return execution != null ? execution : ExecutionBinary.unpack(packed);
  }

  boolean isPacked() {
    return packed != null;
  }

  /** The packed document (never modify it), or null. */
  byte[] packed() {
    return packed;
  }

  ExecutionId id() {
    return id;
  }

  String matchKey() {
    return matchKey;
  }

  ExecutionState state() {
    return state;
  }

  Instant holdUntil() {
    return holdUntil;
  }

  /** {@link Execution#holdsKey} without unpacking. */
  boolean holdsKey(Instant now) {
    return !state.releasesKey() && now.isBefore(holdUntil);
  }

  /** Its retention ended before {@code now} and it does not hold its key. */
  boolean purgeable(Instant now) {
    return retainUntil.isBefore(now) && !holdsKey(now);
  }

  byte[] result() {
    return result;
  }

  int weight() {
    return weight;
  }

  boolean pinned() {
    return pinned;
  }

  /**
   * Whether the record can hold its match key at some instant: its state does not release the key.
   * Time alone never makes a record hold again once it stopped (see {@link
   * Execution#holdsKey(java.time.Instant)}).
   */
  static boolean mayHoldKey(Execution e) {
    return !e.state().releasesKey();
  }

  /** See {@link ExecutionTable#isPinned(Execution)}. */
  static boolean isPinned(Execution e) {
    if (e.matchKind() == MatchKind.FINGERPRINT && e.state() == ExecutionState.DELIVERED) {
      return false;
    }
    return !e.state().isTerminal() || mayHoldKey(e);
  }

  /** A rough estimate of the heap a record takes: strings as UTF-16, plus the result bytes. */
  static int estimate(Execution e, byte[] result) {
    long chars =
        (long) e.matchKey().length()
            + e.actor().length()
            + e.tool().length()
            + e.fingerprint().length()
            + e.intentScope().length()
            + e.summary().length();
    if (e.lease() != null) {
      chars += e.lease().owner().length() + 16;
    }
    RpcError error = e.error();
    if (error != null) {
      chars += error.message().length() + 16;
    }
    long bytes = BASE_WEIGHT + 2 * chars + 32L * e.timeline().size() + resultWeight(result);
    return (int) Math.min(Integer.MAX_VALUE, bytes);
  }

  private static long resultWeight(byte[] result) {
    return result == null ? 0 : result.length + 16L;
  }
}
