package dev.tally.core.model;

import static dev.tally.core.testing.Stages.await;

import dev.tally.core.call.Admission;
import dev.tally.core.call.CallIntake;
import dev.tally.core.fingerprint.HmacKey;
import dev.tally.core.fingerprint.KeyRing;
import dev.tally.core.gate.Gate;
import dev.tally.core.gate.GateOptions;
import dev.tally.core.mcp.McpNames;
import dev.tally.core.mcp.WireJson;
import dev.tally.core.store.ExecutionStore;
import dev.tally.core.testing.FaultyStore;
import dev.tally.core.testing.MutableClock;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs one list of {@link Op}s against the real {@link Gate} behind the real call pipeline ({@link
 * CallIntake} with {@link Admission#of}, the {@code DispatchRecorder} it hands out), on one store,
 * with a {@link SimulatedUpstream}; after every step it checks the decision against the {@link
 * ReferenceModel} and the {@link Invariants}, and that the store holds what the client was told.
 * One run, one thread; not reusable.
 *
 * <p>Two gates (replicas, each with its own lease owner) share the store; a call reaches one of
 * them ({@link Op.Call#replica()}). Stores are layered: the gates talk to {@link ParkedWaits}
 * (attach waits in model time), over {@link FaultyStore} (store faults on command), over the store
 * under test. A crash closes both gates (and, for a durable store, the store: the next one opens on
 * the same data); a key rotation restarts them with a new active key.
 */
final class ModelRun implements AutoCloseable, CallDriver.Process {
  private final ModelStores stores;
  private final World.ActorMode mode;
  private final MutableClock clock = MutableClock.create();
  private final SimulatedUpstream upstream = new SimulatedUpstream();
  private final ReferenceModel model = new ReferenceModel();
  private final dev.tally.core.contract.ContractRegistry contracts = World.contracts();
  private final List<String> log = new ArrayList<>();
  private final java.util.Map<String, Integer> counts = new java.util.TreeMap<>();
  private ExecutionStore real;
  private FaultyStore faulty;
  private ParkedWaits waits;
  private Gate gate;
  private Gate replica;
  private CallIntake intake;
  private CallIntake replicaIntake;
  private KeyRing keys = KeyRing.of(World.hmacKey(0));
  private int generation;
  private final StoredState stored = new StoredState(() -> real, clock);
  private final CallDriver calls;

  /** A run of {@code mode} on {@code stores}. */
  ModelRun(ModelStores stores, World.ActorMode mode) throws Exception {
    this.stores = stores;
    this.mode = mode;
    this.real = stores.open(clock);
    this.calls = new CallDriver(this, mode, clock, model, upstream, stored);
    wire();
  }

  /** What each op got, one line per op run so far (for a failure report). */
  List<String> log() {
    return log;
  }

  /** How often each decision and event occurred in this run. */
  java.util.Map<String, Integer> counts() {
    counts.put("upstream side effects", upstream.effects());
    return counts;
  }

  @Override
  public void count(String what) {
    counts.merge(what, 1, Integer::sum);
  }

  /** Runs {@code ops}; throws a {@link Violation} naming the op at the first one that breaks. */
  void run(List<Op> ops) throws Exception {
    for (int i = 0; i < ops.size(); i++) {
      Op op = ops.get(i);
      log.add("#" + i + " " + op + "\n      ->");
      try {
        step(op);
        Invariants.atMostOneEffectPerIntent(upstream, model);
      } catch (Violation v) {
        throw new Violation(v.invariant(), "at op #" + i + ": " + v.getMessage());
      }
    }
    try {
      for (ReferenceModel.Exec e : model.all()) {
        stored.checkDurable(e);
      }
    } catch (Violation v) {
      throw new Violation(v.invariant(), "after the last op: " + v.getMessage());
    }
  }

  @Override
  public void note(String s) {
    int last = log.size() - 1;
    log.set(last, log.get(last) + " " + s);
  }

  private void step(Op op) throws Exception {
    count(op.getClass().getSimpleName().toLowerCase(java.util.Locale.ROOT));
    if (op instanceof Op.Call c) {
      calls.call(c);
    } else if (op instanceof Op.Crash) {
      restart();
    } else if (op instanceof Op.Rotate) {
      rotate();
    } else if (op instanceof Op.Advance a) {
      clock.advance(a.by());
    } else if (op instanceof Op.Tick) {
      tick();
    }
  }

  // ---- the process ---------------------------------------------------------------------------

  private void wire() {
    faulty = new FaultyStore(real);
    waits = new ParkedWaits(faulty);
    int g = generation++;
    gate = gate("model-" + g);
    replica = gate("model-" + g + "-replica");
    intake = CallIntake.create(Admission.of(gate), WireJson.defaults(), World.TARGET);
    replicaIntake = CallIntake.create(Admission.of(replica), WireJson.defaults(), World.TARGET);
  }

  private Gate gate(String owner) {
    GateOptions options =
        new GateOptions(
            owner,
            World.LEASE,
            World.HEARTBEAT,
            "idempotencyKey",
            McpNames.HeaderNames.IDEMPOTENCY_KEY,
            McpNames.HeaderNames.INTENT_SCOPE,
            "");
    Gate.Builder b = Gate.builder(waits, keys).options(options).contracts(contracts).clock(clock);
    if (mode == World.ActorMode.TRUSTED_HEADER) {
      b.actors(World.resolver(mode));
    }
    return b.build();
  }

  private void closeGates() {
    if (gate != null) {
      gate.close();
    }
    if (replica != null) {
      replica.close();
    }
  }

  @Override
  public CallIntake intake(boolean viaReplica) {
    return viaReplica ? replicaIntake : intake;
  }

  @Override
  public FaultyStore faulty() {
    return faulty;
  }

  @Override
  public ParkedWaits waits() {
    return waits;
  }

  @Override
  public void crash() {
    try {
      restart();
    } catch (Violation v) {
      throw v;
    } catch (Exception e) {
      throw new IllegalStateException("could not restart the store", e);
    }
  }

  private void restart() throws Exception {
    closeGates();
    waits.releaseAll();
    ExecutionStore next = stores.reopen(real, clock);
    if (next != null) {
      real = next;
    }
    List<ReferenceModel.Exec> settled =
        model.crashed(next != null && stores.settlesOrphansOnOpen());
    wire();
    note("crashed; restarted" + (next != null ? " on the reopened store" : "") + "; " + settled);
    for (ReferenceModel.Exec e : model.all()) {
      stored.checkDurable(e);
    }
  }

  private void rotate() {
    closeGates();
    List<HmacKey> older = new ArrayList<>();
    older.add(keys.active());
    older.addAll(keys.older());
    keys = KeyRing.of(World.hmacKey(older.size()), older);
    wire();
    note("active key " + keys.active().id());
  }

  @Override
  public void tick() {
    // A lease round on each replica: each settles the claims it lost the answer of.
    await(gate.tickLeases());
    await(replica.tickLeases());
    for (ReferenceModel.Exec e : model.reaped(clock.instant())) {
      stored.awaitStored(e);
    }
  }

  @Override
  public void close() {
    closeGates();
    if (waits != null) {
      waits.releaseAll();
    }
    if (real != null) {
      stores.dispose(real);
    }
  }
}
