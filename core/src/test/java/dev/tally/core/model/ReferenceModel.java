package dev.tally.core.model;

import dev.tally.core.contract.ToolClass;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.mcp.TallyCode;
import dev.tally.core.mcp.TallyError;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the gate should decide, written as plainly as the rules read (docs/tool-results.md "Replays"
 * and "Delivery is evidence, not a socket write", config/README.md {@code tools}): a map from each
 * intent to the execution holding it, and when that hold ends.
 *
 * <p>An intent is the actor's credential and tool plus either the idempotency key (keyed calls: the
 * arguments must then match) or the arguments and intent scope (key-less calls). A new execution
 * holds its intent until {@code resultRetention} after acceptance; a key-less one that was
 * delivered holds only until {@code attachWindow} after acceptance, and at least {@code
 * replayWindow} after the delivery; a failure that proves no effect releases it at once. What the
 * holder's state means for a new call: running → wait on it; a result → replay it (or {@code
 * RESULT_NOT_RETAINED}); unknown → redispatch for {@code keyed} tools, {@code OUTCOME_UNKNOWN} for
 * the others.
 */
final class ReferenceModel {

  /** What a call must get. */
  sealed interface Expected {}

  /** A read-only call goes upstream as it is. */
  record Forward() implements Expected {}

  /** A new execution is dispatched. */
  record New() implements Expected {}

  /** {@code exec} is dispatched again, with the same execution id. */
  record Redispatch(Exec exec) implements Expected {}

  /** {@code exec}'s stored outcome is replayed. */
  record Replay(Exec exec) implements Expected {}

  /** An explicit result about {@code exec}. */
  record Respond(TallyCode code, Exec exec) implements Expected {}

  /** A protocol-level refusal. */
  record Refuse(TallyError.Code code) implements Expected {}

  /** The call waits on the running {@code exec}. */
  record Attach(Exec exec) implements Expected {}

  /** What a match is made on: the credential, the tool, and the key or the arguments and scope. */
  record Slot(int actor, int tool, int key, int args, int scope) {
    static Slot of(Op.Call c) {
      return c.key() >= 0
          ? new Slot(c.actor(), c.tool(), c.key(), -1, -1)
          : new Slot(c.actor(), c.tool(), -1, c.args(), c.scope());
    }
  }

  /** One execution as the model knows it. */
  static final class Exec {
    final String id;
    final Slot slot;
    final int actor;
    final int tool;
    final int args;
    final int scope;
    final boolean byKey;
    final Instant accepted;
    ExecutionState state = ExecutionState.DISPATCHED;
    Instant holdUntil;
    Instant leaseUntil;
    Instant deliveredAt;
    byte[] result;
    boolean retained = true;
    int errorCode;

    /** The client was told an answer the store refused to record (the store was down). */
    boolean unrecorded;

    /** It was {@code outcome_unknown} once: an earlier attempt may have run. */
    boolean wasUnknown;

    /**
     * Its first attempt failed (a result with {@code isError}, or a JSON-RPC error) and released
     * the intent (every contract of the world keeps the default {@code releaseOnError}): the next
     * identical call runs anew, a deliberate second effect.
     */
    boolean releasedByError;

    Exec(String id, Op.Call c, Instant now) {
      this.id = id;
      this.slot = Slot.of(c);
      this.actor = c.actor();
      this.tool = c.tool();
      this.args = c.args();
      this.scope = c.scope();
      this.byKey = c.key() >= 0;
      this.accepted = now;
      this.holdUntil = now.plus(World.RETENTION);
      this.leaseUntil = now.plus(World.LEASE);
    }

    boolean holds(Instant now) {
      return state != ExecutionState.FAILED && now.isBefore(holdUntil);
    }

    boolean keyed() {
      return World.classOf(tool) == ToolClass.KEYED;
    }

    @Override
    public String toString() {
      return id + "(" + state.wireName() + ")";
    }
  }

  private final Map<Slot, Exec> holders = new HashMap<>();
  private final Map<String, Exec> byId = new LinkedHashMap<>();

  Exec find(String id) {
    return byId.get(id);
  }

  Collection<Exec> all() {
    return byId.values();
  }

  /**
   * The decision for {@code c} at {@code now}. Like the gate, it first settles a running holder
   * whose lease lapsed (its owner is gone) as {@code outcome_unknown}.
   */
  Expected admit(Op.Call c, Instant now, Op.Fault fault) {
    if (World.classOf(c.tool()) == ToolClass.READ_ONLY) {
      return new Forward();
    }
    if (fault == Op.Fault.STORE_DOWN) {
      return new Refuse(TallyError.Code.STORE_UNAVAILABLE);
    }
    Exec h = holders.get(Slot.of(c));
    return decide(c, h != null && h.holds(now) ? h : null, now);
  }

  /**
   * The decision for {@code c}, which waited on {@code e} and saw it change: its outcome, also when
   * it was delivered to its own caller meanwhile; a new decision if it released its intent.
   */
  Expected afterAttach(Op.Call c, Exec e, Instant now) {
    if (e.holds(now) || e.state == ExecutionState.DELIVERED) {
      return decide(c, e, now);
    }
    return admit(c, now, Op.Fault.NONE);
  }

  private Expected decide(Op.Call c, Exec h, Instant now) {
    if (h == null) {
      return new New();
    }
    if (h.byKey && (h.args != c.args() || h.scope != c.scope())) {
      return new Respond(TallyCode.IDEMPOTENCY_KEY_REUSED, h);
    }
    return switch (h.state) {
      case DISPATCHED -> {
        if (!now.isBefore(h.leaseUntil)) {
          h.state = ExecutionState.OUTCOME_UNKNOWN;
          h.wasUnknown = true;
          yield unknownPolicy(h);
        }
        yield new Attach(h);
      }
      case COMPLETED, COMPLETED_NOT_DELIVERED, DELIVERED ->
          !h.retained && h.errorCode == 0
              ? new Respond(TallyCode.RESULT_NOT_RETAINED, h)
              : new Replay(h);
      case OUTCOME_UNKNOWN -> unknownPolicy(h);
      default -> throw new IllegalStateException("holder in state " + h.state);
    };
  }

  private static Expected unknownPolicy(Exec h) {
    return h.keyed() ? new Redispatch(h) : new Respond(TallyCode.OUTCOME_UNKNOWN, h);
  }

  /** A new execution {@code id} of {@code c} was dispatched at {@code now}. */
  Exec created(Op.Call c, String id, Instant now) {
    Exec e = new Exec(id, c, now);
    byId.put(id, e);
    holders.put(e.slot, e);
    return e;
  }

  /** {@code e} was dispatched again at {@code now}, under a new lease. */
  void redispatched(Exec e, Instant now) {
    e.state = ExecutionState.DISPATCHED;
    e.leaseUntil = now.plus(World.LEASE);
  }

  /**
   * The upstream answered {@code e} with a result ({@code isError} as it says) or an error that
   * does not prove no effect. A failure of a first attempt releases the intent.
   */
  void completed(Exec e, byte[] result, int errorCode, boolean isError) {
    if ((isError || errorCode != 0) && !e.wasUnknown) {
      e.state = ExecutionState.FAILED;
      e.releasedByError = true;
      return;
    }
    e.state = ExecutionState.COMPLETED;
    e.result = result;
    e.errorCode = errorCode;
    e.retained = result == null || result.length <= World.MAX_RESULT_BYTES;
  }

  /**
   * {@code e}'s attempt was proved not to have run (or nothing was sent): its intent is free again,
   * unless an earlier attempt's outcome was unknown (it may have run): then it stays unknown.
   */
  void failed(Exec e) {
    e.state = e.wasUnknown ? ExecutionState.OUTCOME_UNKNOWN : ExecutionState.FAILED;
  }

  /** No answer was seen for {@code e} after it may have reached the upstream. */
  void unknown(Exec e) {
    e.state = ExecutionState.OUTCOME_UNKNOWN;
    e.wasUnknown = true;
    e.wasUnknown = true;
  }

  /** The store refused to record what became of {@code e}: it stays dispatched under its lease. */
  void unrecorded(Exec e) {
    e.unrecorded = true;
  }

  /** {@code e}'s answer was written to its client ({@code ok}) or its client was gone. */
  void written(Exec e, boolean ok, Instant now) {
    if (e.state != ExecutionState.COMPLETED && e.state != ExecutionState.COMPLETED_NOT_DELIVERED) {
      return;
    }
    if (!ok) {
      if (e.state == ExecutionState.COMPLETED) {
        e.state = ExecutionState.COMPLETED_NOT_DELIVERED;
      }
      return;
    }
    e.state = ExecutionState.DELIVERED;
    e.deliveredAt = now;
    if (!e.byKey) {
      Instant windowEnd = e.accepted.plus(World.ATTACH_WINDOW);
      Instant storm = now.plus(World.REPLAY_WINDOW);
      Instant until = windowEnd.isAfter(storm) ? windowEnd : storm;
      if (until.isBefore(e.holdUntil)) {
        e.holdUntil = until;
      }
    }
  }

  /** A replay of {@code e} was written to its client: a result not delivered now is. */
  void replayWritten(Exec e, Instant now) {
    if (e.state == ExecutionState.COMPLETED_NOT_DELIVERED) {
      written(e, true, now);
    }
  }

  /**
   * The process restarted: {@code settlesOrphans} stores (the journal) record every execution left
   * dispatched as {@code outcome_unknown} on open; the others keep them until their lease lapses.
   */
  List<Exec> crashed(boolean settlesOrphans) {
    List<Exec> changed = new ArrayList<>();
    if (settlesOrphans) {
      for (Exec e : byId.values()) {
        if (e.state == ExecutionState.DISPATCHED) {
          e.state = ExecutionState.OUTCOME_UNKNOWN;
          e.wasUnknown = true;
          changed.add(e);
        }
      }
    }
    return changed;
  }

  /** A lease round at {@code now}: dispatched executions whose lease lapsed become unknown. */
  List<Exec> reaped(Instant now) {
    List<Exec> changed = new ArrayList<>();
    for (Exec e : byId.values()) {
      if (e.state == ExecutionState.DISPATCHED && !now.isBefore(e.leaseUntil)) {
        e.state = ExecutionState.OUTCOME_UNKNOWN;
        e.wasUnknown = true;
        changed.add(e);
      }
    }
    return changed;
  }
}
