package dev.tally.core.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What the gate model found in main code, each as the minimal scenario it shrank to, kept as
 * regression cases (both are fixed; the random scenarios meet them too).
 */
class GateModelFindingsTest {
  private static Op.Call call(int tool, int key, Op.Reaction r, Op.End end) {
    return new Op.Call("new", 0, tool, 1, key, false, 0, 0, Op.Fault.NONE, r, end, null, false);
  }

  private static String violation(World.ActorMode mode, List<Op> ops) throws Exception {
    try (ModelRun run = new ModelRun(MemoryGateModelTest.memoryStores(), mode)) {
      try {
        run.run(ops);
        return null;
      } catch (Violation v) {
        return v.getMessage() + "\n  " + String.join("\n  ", run.log());
      }
    }
  }

  /**
   * Finding 1 (seed 1 shrunk): with {@code token_hash} actors, the default, a key rotation changes
   * the actor of every credential, so the retry of a call made before it was not matched (by
   * fingerprint or by idempotency key): it ran again. Fixed: the gate identifies the call under
   * every older key too (actor, secret references, fingerprint and match key).
   */
  @Test
  void aRetryAfterAKeyRotationWithTokenHashActorsIsNotRunAgain() throws Exception {
    for (int key : new int[] {-1, 0}) {
      Op.Call first = call(World.IRREVERSIBLE, key, Op.Reaction.RESULT, Op.End.LOST_AFTER_WRITE);
      List<Op> ops = List.of(first, new Op.Rotate(), first.withReaction(Op.Reaction.RESULT));

      assertThat(violation(World.ActorMode.TOKEN_HASH, ops)).as("key %d", key).isNull();
    }
  }

  /**
   * Finding 2 (seed 20 shrunk): a {@code keyed} execution whose outcome became unknown (its first
   * attempt may have run) is redispatched by the retry; when that second attempt meets an answer
   * that proves only that <em>it</em> did not run (a JSON-RPC -32700/-32600/-32601/-32602, an
   * answerless HTTP 4xx such as 429, or the upstream being unreachable), the execution is recorded
   * {@code failed} and releases its intent, and the next identical call is a new execution with a
   * new idempotency key: the side effect happens twice. Fixed: such an answer keeps the execution
   * {@code outcome_unknown}.
   */
  @Test
  void aRedispatchThatMeetsAnErrorProvingNoEffectKeepsTheIntent() throws Exception {
    for (Op.Reaction second :
        new Op.Reaction[] {
          Op.Reaction.PARSE_ERROR, Op.Reaction.HTTP_4XX, Op.Reaction.UNREACHABLE
        }) {
      Op.Call first = call(World.KEYED, -1, Op.Reaction.CRASH_AFTER_SEND, Op.End.RECEIVED);
      List<Op> ops =
          List.of(
              first,
              new Op.Advance(World.LEASE.plus(Duration.ofMinutes(5)).plusMillis(1)),
              first.withReaction(second),
              first.withReaction(Op.Reaction.RESULT));

      assertThat(violation(World.ActorMode.TRUSTED_HEADER, ops)).as("%s", second).isNull();
    }
  }
}
