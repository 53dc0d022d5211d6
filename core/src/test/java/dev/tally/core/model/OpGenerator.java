package dev.tally.core.model;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Draws a scenario from a seed: new calls, retries of earlier calls (by the same actor, or the
 * identical call by another actor), identical calls racing a running one, every upstream reaction
 * and client end, store faults, crashes, key rotations, lease rounds and clock advances that cross
 * the replay window, the attach window, the lease and the retention. The same seed always gives the
 * same list.
 */
final class OpGenerator {
  private static final Op.Reaction[] RACER_REACTIONS = {
    Op.Reaction.RESULT,
    Op.Reaction.RESULT,
    Op.Reaction.RESULT_IS_ERROR,
    Op.Reaction.INTERNAL_ERROR,
    Op.Reaction.INVALID_PARAMS,
    Op.Reaction.SILENT_END,
    Op.Reaction.UNREACHABLE,
  };

  private final Random random;
  private final World.ActorMode mode;
  private final List<Op.Call> calls = new ArrayList<>();

  private OpGenerator(long seed, World.ActorMode mode) {
    this.random = new Random(seed);
    this.mode = mode;
  }

  /** The scenario of {@code seed}: 10 to 60 ops. */
  static List<Op> scenario(long seed, World.ActorMode mode) {
    OpGenerator g = new OpGenerator(seed, mode);
    int n = 10 + g.random.nextInt(51);
    List<Op> ops = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      ops.add(g.next());
    }
    return ops;
  }

  /** The actor mode of {@code seed}'s run: even seeds trusted headers, odd seeds token hashes. */
  static World.ActorMode modeOf(long seed) {
    return (seed & 1) == 0 ? World.ActorMode.TRUSTED_HEADER : World.ActorMode.TOKEN_HASH;
  }

  private Op next() {
    int r = random.nextInt(100);
    if (r < 32 || calls.isEmpty()) {
      return remember(newCall());
    }
    if (r < 57) {
      return remember(retry(false));
    }
    if (r < 65) {
      return remember(retry(true));
    }
    if (r < 81) {
      return new Op.Advance(advance());
    }
    if (r < 86) {
      return new Op.Crash();
    }
    if (r < 90) {
      return new Op.Rotate();
    }
    if (r < 95) {
      return new Op.Tick();
    }
    return remember(newCall());
  }

  private Op.Call remember(Op.Call c) {
    calls.add(c);
    return c;
  }

  private Op.Call newCall() {
    int t = random.nextInt(100);
    int tool = t < 42 ? World.KEYED : t < 87 ? World.IRREVERSIBLE : World.READ_ONLY;
    int key = random.nextInt(100) < 40 ? random.nextInt(World.KEYS.size()) : -1;
    return call(
        "new",
        random.nextInt(World.ACTORS.size()),
        tool,
        random.nextInt(World.ARGUMENT_SETS),
        key,
        key >= 0 && random.nextInt(100) < 30,
        random.nextInt(100) < 20 ? 1 : 0);
  }

  /** A retry of an earlier call, or ({@code otherActor}) the identical call of another actor. */
  private Op.Call retry(boolean otherActor) {
    int i = random.nextInt(calls.size());
    Op.Call of = calls.get(i);
    int actor = otherActor ? other(of.actor()) : of.actor();
    int args = of.args();
    String note = otherActor ? "identical call of another actor" : "retry";
    if (of.key() >= 0 && random.nextInt(100) < 8) {
      args = (args + 1) % World.ARGUMENT_SETS;
      note = "same key, other arguments";
    }
    return call(note, actor, of.tool(), args, of.key(), of.keyInHeader(), of.scope());
  }

  private Op.Call call(
      String note, int actor, int tool, int args, int key, boolean keyInHeader, int scope) {
    Op.Call racer = null;
    if (random.nextInt(100) < 14) {
      racer =
          new Op.Call(
              "racer",
              random.nextInt(100) < 70 ? actor : other(actor),
              tool,
              args,
              key,
              keyInHeader,
              scope,
              random.nextInt(ClientBodies.SHAPES),
              Op.Fault.NONE,
              RACER_REACTIONS[random.nextInt(RACER_REACTIONS.length)],
              end(),
              null,
              random.nextInt(100) < 40);
    }
    return new Op.Call(
        note,
        actor,
        tool,
        args,
        key,
        keyInHeader,
        scope,
        random.nextInt(ClientBodies.SHAPES),
        fault(),
        reaction(),
        end(),
        racer,
        random.nextInt(100) < 20);
  }

  private int other(int actor) {
    return (actor + 1 + random.nextInt(World.ACTORS.size() - 1)) % World.ACTORS.size();
  }

  private Op.Fault fault() {
    int r = random.nextInt(100);
    if (r < 4) {
      return Op.Fault.STORE_DOWN;
    }
    if (r < 7) {
      return Op.Fault.CLAIM_ANSWER_LOST;
    }
    if (r < 10) {
      return Op.Fault.STORE_DOWN_AT_ANSWER;
    }
    return Op.Fault.NONE;
  }

  private Op.Reaction reaction() {
    int r = random.nextInt(100);
    Op.Reaction[] byWeight = {
      Op.Reaction.RESULT, // 0-33
      Op.Reaction.RESULT_IS_ERROR, // 34-38
      Op.Reaction.RESULT_LARGE, // 39-41
      Op.Reaction.PARSE_ERROR, // 42-43
      Op.Reaction.INVALID_REQUEST, // 44-45
      Op.Reaction.METHOD_NOT_FOUND, // 46-47
      Op.Reaction.INVALID_PARAMS, // 48-49
      Op.Reaction.INTERNAL_ERROR, // 50-54
      Op.Reaction.SILENT_END, // 55-60
      Op.Reaction.HTTP_4XX, // 61-64
      Op.Reaction.TIMEOUT, // 65-69
      Op.Reaction.BROKE, // 70-74
      Op.Reaction.CANCELLED, // 75-78
      Op.Reaction.UNREACHABLE, // 79-83
      Op.Reaction.CRASH_BEFORE_SEND, // 84-87
      Op.Reaction.CRASH_AFTER_SEND, // 88-92
      Op.Reaction.CRASH_AFTER_ANSWER, // 93-99
    };
    int[] upTo = {33, 38, 41, 43, 45, 47, 49, 54, 60, 64, 69, 74, 78, 83, 87, 92, 99};
    for (int i = 0; i < upTo.length; i++) {
      if (r <= upTo[i]) {
        return byWeight[i];
      }
    }
    return Op.Reaction.RESULT;
  }

  private Op.End end() {
    int r = random.nextInt(100);
    return r < 60 ? Op.End.RECEIVED : r < 80 ? Op.End.LOST_AFTER_WRITE : Op.End.GONE_BEFORE_ANSWER;
  }

  /** Ends in an odd millisecond, so no instant of a run falls on the end of a window or lease. */
  private Duration advance() {
    int r = random.nextInt(100);
    Duration d;
    if (r < 30) {
      d = Duration.ofSeconds(1);
    } else if (r < 50) {
      d = World.REPLAY_WINDOW.plusSeconds(1);
    } else if (r < 65) {
      d = Duration.ofMinutes(4);
    } else if (r < 80) {
      d = World.ATTACH_WINDOW.plusMinutes(1);
    } else if (r < 92) {
      d = World.LEASE.plusMinutes(5);
    } else {
      d = World.RETENTION.plusHours(1);
    }
    return d.plusMillis(1);
  }
}
