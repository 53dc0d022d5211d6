package dev.tally.core.model;

import java.time.Duration;

/**
 * One step of a model run: a client's call (with what the upstream and the client then do), or an
 * event around the calls. A list of ops is a complete, replayable scenario: ops never refer to each
 * other (a retry is a call with the same intent as an earlier one), so any sub-list is a scenario
 * too, which is what shrinking a failure needs.
 */
sealed interface Op {

  /**
   * A client calls a tool.
   *
   * @param note what the generator meant ("new", "retry of #3", "identical call of another actor");
   *     informational only
   * @param actor index into {@link World#ACTORS}: whose credential the request carries
   * @param tool index into {@link World#TOOLS}
   * @param args index into the argument pool
   * @param key index into the idempotency key pool, or -1 for none
   * @param keyInHeader the key travels in the {@code Idempotency-Key} header instead of the
   *     arguments
   * @param scope index into {@link World#SCOPES} (0: no explicit intent scope)
   * @param shape how the request's bytes are laid out (member order, whitespace, escapes, {@code
   *     _meta}); see {@link ClientBodies}
   * @param fault a store fault around this call
   * @param reaction what the upstream does if the call is dispatched to it
   * @param end what becomes of the client's connection when Tally answers
   * @param racer an identical call (possibly of another actor) arriving while this one is in
   *     flight, or null
   * @param replica the call reaches the second replica: another gate on the same store
   */
  record Call(
      String note,
      int actor,
      int tool,
      int args,
      int key,
      boolean keyInHeader,
      int scope,
      int shape,
      Fault fault,
      Reaction reaction,
      End end,
      Call racer,
      boolean replica)
      implements Op {

    /** Simpler variants of this call, for shrinking: without its racer, without its fault. */
    java.util.List<Op> simpler() {
      java.util.List<Op> out = new java.util.ArrayList<>(2);
      if (racer != null) {
        out.add(
            new Call(
                note,
                actor,
                tool,
                args,
                key,
                keyInHeader,
                scope,
                shape,
                fault,
                reaction,
                end,
                null,
                replica));
      }
      if (fault != Fault.NONE) {
        out.add(
            new Call(
                note,
                actor,
                tool,
                args,
                key,
                keyInHeader,
                scope,
                shape,
                Fault.NONE,
                reaction,
                end,
                racer,
                replica));
      }
      return out;
    }

    Call withReaction(Reaction r) {
      return new Call(
          note, actor, tool, args, key, keyInHeader, scope, shape, fault, r, end, racer, replica);
    }

    @Override
    public String toString() {
      return "Call["
          + note
          + ": "
          + World.ACTORS.get(actor)
          + " "
          + World.TOOLS.get(tool)
          + " args#"
          + args
          + (key < 0 ? "" : " key#" + key + (keyInHeader ? "(header)" : "(argument)"))
          + (scope == 0 ? "" : " scope=" + World.SCOPES.get(scope))
          + " shape#"
          + shape
          + (replica ? " via replica" : "")
          + (fault == Fault.NONE ? "" : " fault=" + fault)
          + " upstream="
          + reaction
          + " client="
          + end
          + (racer == null ? "" : " racer=" + racer)
          + "]";
    }
  }

  /** The process dies (gate, in-flight calls, connections) and starts again on its store. */
  record Crash() implements Op {}

  /** A new HMAC key becomes active; the older ones stay in the ring (the gate restarts). */
  record Rotate() implements Op {}

  /** Time passes. */
  record Advance(Duration by) implements Op {}

  /** One lease round: heartbeats, settling unsent claims, reaping lapsed leases. */
  record Tick() implements Op {}

  /** A store fault around one call. */
  enum Fault {
    NONE,
    /** The store is unreachable while the call is admitted. */
    STORE_DOWN,
    /** The claim is written, and its answer is lost (the connection dropped after the commit). */
    CLAIM_ANSWER_LOST,
    /** The store is unreachable when the upstream's answer (or its absence) is to be recorded. */
    STORE_DOWN_AT_ANSWER
  }

  /** What the upstream does with a dispatched call. */
  enum Reaction {
    RESULT(true),
    RESULT_IS_ERROR(true),
    /** A result larger than the store keeps. */
    RESULT_LARGE(true),
    PARSE_ERROR(false),
    INVALID_REQUEST(false),
    METHOD_NOT_FOUND(false),
    INVALID_PARAMS(false),
    /** A JSON-RPC error that does not prove the tool never ran (-32603). */
    INTERNAL_ERROR(true),
    /** The response ends (HTTP 200) without the answer. */
    SILENT_END(true),
    /** An HTTP 4xx without an answer: nothing ran. */
    HTTP_4XX(false),
    /** No answer within the upstream timeout. */
    TIMEOUT(true),
    /** The connection breaks after the request went out. */
    BROKE(true),
    /** The client cancels before the answer; the request is reset upstream. */
    CANCELLED(true),
    /** No connection to the upstream: nothing was sent. */
    UNREACHABLE(false),
    /** The process dies after recording {@code dispatched}, before a byte went upstream. */
    CRASH_BEFORE_SEND(false),
    /** The process dies after the upstream received (and ran) the call, before it answered. */
    CRASH_AFTER_SEND(true),
    /** The process dies after recording the upstream's answer, before writing it to the client. */
    CRASH_AFTER_ANSWER(true);

    /** Whether the upstream runs the tool (has a side effect) when it gets the call. */
    final boolean executes;

    Reaction(boolean executes) {
      this.executes = executes;
    }

    boolean crashes() {
      return this == CRASH_BEFORE_SEND || this == CRASH_AFTER_SEND || this == CRASH_AFTER_ANSWER;
    }

    /** A JSON-RPC error code, for the reactions that answer with one; else 0. */
    int rpcCode() {
      return switch (this) {
        case PARSE_ERROR -> -32700;
        case INVALID_REQUEST -> -32600;
        case METHOD_NOT_FOUND -> -32601;
        case INVALID_PARAMS -> -32602;
        case INTERNAL_ERROR -> -32603;
        default -> 0;
      };
    }
  }

  /** What becomes of the client's connection when Tally writes an answer to it. */
  enum End {
    /** The write completes and the client reads the answer. */
    RECEIVED,
    /** The write completes, but the client never reads it (frozen, killed, a proxy lost it). */
    LOST_AFTER_WRITE,
    /** The client is gone before the answer is written. */
    GONE_BEFORE_ANSWER
  }
}
