package dev.tally.core.model;

import static dev.tally.core.testing.Stages.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.call.CallIntake;
import dev.tally.core.call.CallReply;
import dev.tally.core.mcp.BodyClassifier;
import dev.tally.core.mcp.BodyScan;
import dev.tally.core.mcp.Headers;
import dev.tally.core.mcp.TallyCode;
import dev.tally.core.mcp.TallyError;
import dev.tally.core.mcp.WireJson;
import dev.tally.core.testing.FaultyStore;
import dev.tally.core.testing.MutableClock;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.LockSupport;

/**
 * Drives one {@link Op.Call} of a {@link ModelRun} through the call pipeline as an adapter does:
 * the client's bytes into {@link CallIntake}, the {@link CallReply} carried out (forwarded,
 * dispatched to the {@link SimulatedUpstream} and its answer fed to the {@code DispatchRecorder},
 * answered, refused), the client's end told to the {@code Delivery}; and checks each reply against
 * the {@link ReferenceModel}, the bytes sent upstream and everything shown to the client against
 * the {@link Invariants}, and the store against the model ({@link StoredState}).
 */
final class CallDriver {
  /** What a call needs of the running process (the run swaps its parts on a crash or rotation). */
  interface Process {
    /** The pipeline of the first replica's gate, or ({@code viaReplica}) of the second's. */
    CallIntake intake(boolean viaReplica);

    FaultyStore faulty();

    ParkedWaits waits();

    /** The process dies and restarts (see {@link Op.Crash}). */
    void crash();

    /** One lease round (see {@link Op.Tick}). */
    void tick();

    /** Adds {@code s} to what the current op got (the failure report). */
    void note(String s);

    /** Counts one occurrence of {@code what} (the run's statistics). */
    void count(String what);
  }

  private record Client(Op.Call call, JsonNode rpcId, byte[] body, Headers headers) {}

  private static final long REPLY_WAIT_NANOS = 20_000_000_000L;

  private final Process process;
  private final World.ActorMode mode;
  private final MutableClock clock;
  private final ReferenceModel model;
  private final SimulatedUpstream upstream;
  private final StoredState stored;
  private final BodyClassifier classifier = BodyClassifier.create(WireJson.defaults());
  private int rpcSeq;

  CallDriver(
      Process process,
      World.ActorMode mode,
      MutableClock clock,
      ReferenceModel model,
      SimulatedUpstream upstream,
      StoredState stored) {
    this.process = process;
    this.mode = mode;
    this.clock = clock;
    this.model = model;
    this.upstream = upstream;
    this.stored = stored;
  }

  private Client client(Op.Call c) {
    int n = ++rpcSeq;
    // Small ids, shared by all actors: ids are not identities.
    String id = n % 3 == 0 ? "\"r" + (n % 5) + "\"" : Integer.toString(n % 4);
    String keyHeader = c.key() >= 0 && c.keyInHeader() ? World.KEYS.get(c.key()) : null;
    byte[] body = ClientBodies.render(c, id);
    JsonNode idNode = Invariants.parse(body).get("id");
    return new Client(c, idNode, body, World.headers(mode, c.actor(), keyHeader));
  }

  private CompletableFuture<CallReply> admit(Client cl) {
    BodyScan scan = classifier.classify(cl.body());
    return process
        .intake(cl.call().replica())
        .admit(scan, cl.body(), 0, cl.body().length, cl.headers())
        .toCompletableFuture();
  }

  void call(Op.Call c) {
    Client cl = client(c);
    Instant now = clock.instant();
    ReferenceModel.Expected want = model.admit(c, now, c.fault());
    boolean claimLost =
        c.fault() == Op.Fault.CLAIM_ANSWER_LOST && want instanceof ReferenceModel.New;
    if (claimLost) {
      want = new ReferenceModel.Refuse(TallyError.Code.STORE_UNAVAILABLE);
      process.faulty().loseClaimAnswers(1);
    }
    process.faulty().down(c.fault() == Op.Fault.STORE_DOWN);
    int parked = process.waits().parkedSoFar();
    CompletableFuture<CallReply> stage = admit(cl);
    CallReply reply;
    try {
      reply = awaitReply(stage, parked);
    } finally {
      process.faulty().down(false);
      process.faulty().loseClaimAnswers(0);
    }
    decided(cl, stage, reply, want);
    if (claimLost) {
      // The lease round settles the claim that landed unanswered: failed, nothing was sent.
      process.tick();
    }
  }

  /**
   * Handles the reply of a call that the model expected to get {@code want}. A call that waits on a
   * running execution which nothing will settle meanwhile gets {@code IDEMPOTENCY_IN_PROGRESS} once
   * its attach wait has passed on the clock.
   */
  private void decided(
      Client cl,
      CompletableFuture<CallReply> stage,
      CallReply reply,
      ReferenceModel.Expected want) {
    if (reply == null) {
      if (!(want instanceof ReferenceModel.Attach a)) {
        throw new Violation(
            "decision", "the call waits on a running execution; the model expected " + want);
      }
      clock.advance(World.ATTACH_WAIT_PASSED);
      int parked = process.waits().parkedSoFar();
      process.waits().releaseAll();
      want = new ReferenceModel.Respond(TallyCode.IDEMPOTENCY_IN_PROGRESS, a.exec());
      reply = awaitReply(stage, parked);
      if (reply == null) {
        throw new Violation("decision", "the call waits again after its attach wait passed");
      }
      process.note("waited " + World.ATTACH_WAIT_PASSED + ";");
    } else if (want instanceof ReferenceModel.Attach) {
      throw new Violation(
          "decision",
          "the model expected the call to wait on a running execution; the gate answered "
              + describe(reply));
    }
    handle(cl, reply, want);
  }

  /** The call's reply, or null when it parked on a running execution. */
  private CallReply awaitReply(CompletableFuture<CallReply> stage, int parkedBefore) {
    long deadline = System.nanoTime() + REPLY_WAIT_NANOS;
    while (true) {
      if (stage.isDone()) {
        return stage.join();
      }
      if (process.waits().parkedSoFar() > parkedBefore) {
        return null;
      }
      if (System.nanoTime() > deadline) {
        throw new Violation("decision", "the call got no reply within 20 s");
      }
      LockSupport.parkNanos(50_000);
    }
  }

  private void handle(Client cl, CallReply reply, ReferenceModel.Expected want) {
    process.note(describe(reply));
    process.count("decision " + label(want));
    if (reply instanceof CallReply.Forward) {
      expect(want instanceof ReferenceModel.Forward, want, reply);
      byte[] result =
          upstream.forward(cl.body(), cl.call().tool(), cl.call().actor(), clock.instant());
      shown(cl, Messages.result(cl.rpcId(), result));
    } else if (reply instanceof CallReply.Dispatch d) {
      dispatched(cl, d, want);
    } else if (reply instanceof CallReply.Answer a) {
      Messages.checkAnswer(a.message(), cl.rpcId(), want);
      boolean written = cl.call().end() != Op.End.GONE_BEFORE_ANSWER;
      a.delivery().written(written);
      if (written) {
        shown(cl, a.message());
      }
      if (want instanceof ReferenceModel.Replay r && written) {
        model.replayWritten(r.exec(), clock.instant());
        stored.awaitStored(r.exec());
      }
    } else {
      CallReply.Refusal f = (CallReply.Refusal) reply;
      expect(want instanceof ReferenceModel.Refuse r && r.code() == f.error().code(), want, reply);
      shown(cl, f.message());
    }
    if (want instanceof ReferenceModel.Replay r) {
      stored.awaitStored(r.exec());
    } else if (want instanceof ReferenceModel.Respond r) {
      stored.awaitStored(r.exec());
    }
  }

  private void dispatched(Client cl, CallReply.Dispatch d, ReferenceModel.Expected want) {
    String id = d.inFlight().id().value();
    Instant now = clock.instant();
    ReferenceModel.Exec e;
    if (want instanceof ReferenceModel.New) {
      expect(model.find(id) == null && !d.inFlight().continued(), want, d);
      e = model.created(cl.call(), id, now);
    } else if (want instanceof ReferenceModel.Redispatch r) {
      expect(r.exec().id.equals(id) && d.inFlight().continued(), want, d);
      e = r.exec();
      model.redispatched(e, now);
    } else {
      throw new Violation("decision", "expected " + want + ", the gate dispatched " + id);
    }
    stored.awaitStored(e);
    Invariants.sameArguments(cl.body(), d.body(), id);
    Op.Call c = cl.call();
    boolean racing =
        c.racer() != null && !c.reaction().crashes() && c.fault() != Op.Fault.STORE_DOWN_AT_ANSWER;
    Client racer = null;
    CompletableFuture<CallReply> racerStage = null;
    if (racing) {
      racer = client(c.racer());
      ReferenceModel.Expected rwant = model.admit(c.racer(), now, Op.Fault.NONE);
      int parked = process.waits().parkedSoFar();
      racerStage = admit(racer);
      CallReply r = awaitReply(racerStage, parked);
      if (rwant instanceof ReferenceModel.Attach a && a.exec() == e) {
        if (r != null) {
          throw new Violation(
              "decision",
              "an identical call while " + id + " runs should wait on it; got " + describe(r));
        }
        process.note("[racer waits]");
        process.count("racer attached");
      } else {
        process.note("[racer:");
        decided(racer, racerStage, r, rwant);
        process.note("]");
        racer = null;
      }
    }
    settle(cl, d, e);
    if (racer != null) {
      ReferenceModel.Expected rwant = model.afterAttach(racer.call(), e, clock.instant());
      int parked = process.waits().parkedSoFar();
      process.waits().releaseAll();
      CallReply r = awaitReply(racerStage, parked);
      if (r == null) {
        throw new Violation("decision", "the racer waits again; the model expected " + rwant);
      }
      process.note("[racer:");
      handle(racer, r, rwant);
      process.note("]");
    }
  }

  /** The upstream's part of a dispatched call, and the client's. */
  private void settle(Client cl, CallReply.Dispatch d, ReferenceModel.Exec e) {
    Op.Call c = cl.call();
    Op.Reaction re = c.reaction();
    var rec = d.recorder();
    boolean down = c.fault() == Op.Fault.STORE_DOWN_AT_ANSWER;
    if (re == Op.Reaction.UNREACHABLE) {
      process.faulty().down(down);
      CallReply.Refusal err = rec.unreachable();
      process.faulty().down(false);
      shown(cl, err.message());
      settled(e, down, () -> model.failed(e));
      return;
    }
    if (re == Op.Reaction.CRASH_BEFORE_SEND) {
      process.crash();
      return;
    }
    byte[] result = upstream.receive(d.body(), e.id, c.tool(), c.actor(), re, clock.instant());
    switch (re) {
      case CRASH_AFTER_SEND -> process.crash();
      case RESULT, RESULT_IS_ERROR, RESULT_LARGE, CRASH_AFTER_ANSWER ->
          answer(cl, d, e, Messages.result(Messages.upstreamId(d.body()), result), result, 0, down);
      case INTERNAL_ERROR ->
          answer(
              cl,
              d,
              e,
              Messages.rpcError(Messages.upstreamId(d.body()), re.rpcCode(), Messages.ERROR_DATA),
              Messages.ERROR_DATA,
              re.rpcCode(),
              down);
      case PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS ->
          answer(
              cl,
              d,
              e,
              Messages.rpcError(Messages.upstreamId(d.body()), re.rpcCode(), null),
              null,
              re.rpcCode(),
              down);
      case HTTP_4XX -> {
        rec.head(429);
        process.faulty().down(down);
        var err = rec.ended();
        process.faulty().down(false);
        if (err != null) {
          throw new Violation(
              "decision", "an answerless HTTP 4xx was turned into " + describe(err));
        }
        settled(e, down, () -> model.failed(e));
      }
      case SILENT_END, TIMEOUT, BROKE, CANCELLED -> {
        rec.head(200);
        process.faulty().down(down);
        var err =
            switch (re) {
              case SILENT_END -> rec.ended();
              case TIMEOUT -> rec.timedOut();
              case BROKE -> rec.broke("the upstream connection was reset");
              default -> rec.broke("the client cancelled the call");
            };
        process.faulty().down(false);
        if (!(err instanceof CallReply.Answer told)
            || !Messages.summary(told.message()).equals("OUTCOME_UNKNOWN " + e.id)) {
          throw new Violation(
              "decision",
              "a call sent without an answer must be told OUTCOME_UNKNOWN for "
                  + e.id
                  + ", got "
                  + describe(err));
        }
        if (c.end() != Op.End.GONE_BEFORE_ANSWER) {
          shown(cl, told.message());
        }
        settled(e, down, () -> model.unknown(e));
      }
      default -> throw new IllegalStateException(re.toString());
    }
  }

  private void answer(
      Client cl,
      CallReply.Dispatch d,
      ReferenceModel.Exec e,
      byte[] message,
      byte[] result,
      int rpcCode,
      boolean down) {
    var rec = d.recorder();
    rec.head(200);
    process.faulty().down(down);
    var delivery = await(rec.message(message));
    process.faulty().down(false);
    boolean provesNoEffect = rpcCode != 0 && rpcCode != -32603;
    if (down) {
      process.count("outcome not recorded (store down)");
      model.unrecorded(e);
    } else if (provesNoEffect) {
      model.failed(e);
    } else {
      model.completed(e, result, rpcCode, cl.call().reaction() == Op.Reaction.RESULT_IS_ERROR);
    }
    stored.awaitStored(e);
    if (cl.call().reaction() == Op.Reaction.CRASH_AFTER_ANSWER) {
      process.crash();
      return;
    }
    boolean written = cl.call().end() != Op.End.GONE_BEFORE_ANSWER;
    // The client gets the upstream's answer as it came (Tally adds nothing to it).
    delivery.written(written);
    if (written) {
      shown(cl, message);
    }
    if (!down) {
      model.written(e, written, clock.instant());
      stored.awaitStored(e);
    }
  }

  private void settled(ReferenceModel.Exec e, boolean down, Runnable recorded) {
    if (down) {
      process.count("outcome not recorded (store down)");
      model.unrecorded(e);
    } else {
      recorded.run();
    }
    stored.awaitStored(e);
  }

  private void shown(Client cl, byte[] message) {
    Invariants.noForeignResult(cl.call().actor(), message, model);
  }

  private static void expect(boolean ok, ReferenceModel.Expected want, Object got) {
    if (!ok) {
      throw new Violation("decision", "expected " + want + ", got " + describe(got));
    }
  }

  static String describe(Object reply) {
    if (reply instanceof CallReply.Dispatch d) {
      return "Dispatch["
          + d.inFlight().id().value()
          + (d.inFlight().continued() ? ", again" : "")
          + "]";
    }
    if (reply instanceof CallReply.Answer a) {
      return "Answer[" + Messages.summary(a.message()) + "]";
    }
    if (reply instanceof CallReply.Refusal r) {
      return "Refusal[" + r.error().code() + "]";
    }
    return String.valueOf(reply);
  }

  private static String label(ReferenceModel.Expected want) {
    if (want instanceof ReferenceModel.Respond r) {
      return "respond " + r.code();
    }
    if (want instanceof ReferenceModel.Refuse r) {
      return "refuse " + r.code();
    }
    return want.getClass().getSimpleName().toLowerCase(java.util.Locale.ROOT);
  }
}
