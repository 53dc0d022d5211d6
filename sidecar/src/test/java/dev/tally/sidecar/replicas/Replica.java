package dev.tally.sidecar.replicas;

import dev.tally.core.contract.ContractRegistry;
import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.fingerprint.HmacKey;
import dev.tally.core.fingerprint.KeyRing;
import dev.tally.core.gate.Gate;
import dev.tally.core.gate.GateOptions;
import dev.tally.sidecar.Sidecar;
import dev.tally.sidecar.SidecarOptions;
import dev.tally.store.postgres.PostgresExecutionStore;
import dev.tally.store.postgres.PostgresStoreOptions;
import dev.tally.store.postgres.PostgresTarget;
import io.vertx.core.Vertx;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * One sidecar replica in this JVM: its own Vert.x, its own {@link Gate} (a distinct lease owner)
 * and its own {@link PostgresExecutionStore} on the shared database. All replicas share the HMAC
 * key and the actor, as replicas behind one load balancer do.
 */
final class Replica {
  /**
   * A short lease, so a dead owner is noticed within seconds; ten heartbeats long, so a live owner
   * whose heartbeat lags on a busy machine is not taken for dead.
   */
  static final Duration LEASE = Duration.ofSeconds(5);

  static final Duration HEARTBEAT = Duration.ofMillis(500);
  private static final byte[] KEY =
      "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

  final String owner;
  final PostgresExecutionStore store;

  /** What the gate sees: {@link #store}, counting the waits of attached retries. */
  final WaitCountingStore gateStore;

  final Gate gate;
  final Sidecar sidecar;
  final String url;
  private final Vertx vertx;
  private boolean closed;

  private Replica(
      String owner,
      PostgresExecutionStore store,
      WaitCountingStore gateStore,
      Gate gate,
      Vertx vertx,
      Sidecar sidecar) {
    this.owner = owner;
    this.store = store;
    this.gateStore = gateStore;
    this.gate = gate;
    this.vertx = vertx;
    this.sidecar = sidecar;
    this.url = "http://127.0.0.1:" + sidecar.port() + "/mcp";
  }

  /**
   * Store options with short health and reconnect intervals, so an outage and a recovery are
   * noticed within a second; timeouts are generous for a machine shared with other builds.
   */
  static PostgresStoreOptions storeOptions(PostgresTarget target) {
    return PostgresStoreOptions.defaults(target)
        .withMaxResultBytes(64 * 1024)
        .withTimeouts(Duration.ofSeconds(5), Duration.ofSeconds(5))
        .withIntervals(Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(250));
  }

  static Replica start(String owner, PostgresStoreOptions storeOptions, String upstreamUrl)
      throws Exception {
    return start(owner, storeOptions, upstreamUrl, Clock.systemUTC());
  }

  /**
   * A replica whose host clock is {@code clock}: its gate's clock and its store's wall clock (a
   * real clock, e.g. the system clock plus a skew).
   */
  static Replica start(
      String owner, PostgresStoreOptions storeOptions, String upstreamUrl, Clock clock)
      throws Exception {
    return start(
        owner,
        storeOptions,
        upstreamUrl,
        clock,
        KeyRing.of(HmacKey.of("k1", KEY)),
        keys -> headers -> "actor-1");
  }

  /**
   * A replica on its own HMAC key ring, whose actors {@code actors} resolves with that ring (e.g.
   * {@code token_hash}), as replicas are during a rolling key rotation.
   */
  static Replica start(
      String owner,
      PostgresStoreOptions storeOptions,
      String upstreamUrl,
      Clock clock,
      KeyRing keys,
      java.util.function.Function<KeyRing, dev.tally.core.actor.ActorResolver> actors)
      throws Exception {
    PostgresExecutionStore store =
        PostgresExecutionStore.open(storeOptions.withWallClock(clock))
            .toCompletableFuture()
            .get(60, TimeUnit.SECONDS);
    WaitCountingStore gateStore = new WaitCountingStore(store);
    GateOptions d = GateOptions.defaults(owner);
    Gate gate =
        Gate.builder(gateStore, keys)
            .options(
                new GateOptions(
                    owner,
                    LEASE,
                    HEARTBEAT,
                    d.idempotencyArgument(),
                    d.idempotencyHeader(),
                    d.intentScopeHeader(),
                    d.credentialRef()))
            .contracts(ContractRegistry.defaults())
            .actors(actors.apply(keys))
            .clock(clock)
            .build();
    Vertx vertx =
        Vertx.vertx(
            SidecarOptions.builder(URI.create("http://x/")).eventLoops(2).build().vertxOptions());
    try {
      SidecarOptions options =
          SidecarOptions.builder(URI.create(upstreamUrl)).port(0).eventLoops(2).build();
      Sidecar sidecar =
          Sidecar.start(vertx, options, gate)
              .toCompletionStage()
              .toCompletableFuture()
              .get(15, TimeUnit.SECONDS);
      return new Replica(owner, store, gateStore, gate, vertx, sidecar);
    } catch (Exception e) {
      gate.close();
      store.close();
      vertx.close();
      throw e;
    }
  }

  Optional<Execution> find(String executionId) throws Exception {
    return store
        .find(ExecutionId.parse(executionId))
        .toCompletableFuture()
        .get(10, TimeUnit.SECONDS);
  }

  void close() throws Exception {
    if (closed) {
      return;
    }
    closed = true;
    try {
      sidecar.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    } finally {
      gate.close();
      store.close();
      vertx.close().toCompletionStage().toCompletableFuture().get(15, TimeUnit.SECONDS);
    }
  }
}
