package dev.tally.sidecar.it;

import dev.tally.core.contract.ContractRegistry;
import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.fingerprint.HmacKey;
import dev.tally.core.fingerprint.KeyRing;
import dev.tally.core.gate.Gate;
import dev.tally.core.gate.GateOptions;
import dev.tally.core.store.ForwardingExecutionStore;
import dev.tally.core.store.MemoryExecutionStore;
import dev.tally.sidecar.Sidecar;
import dev.tally.sidecar.SidecarOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

/**
 * An SDK upstream and a sidecar in front of it on port 0, deciding with either the real {@link
 * Gate} over the memory store (the production path) or a scripted {@link FakeGate}.
 */
final class SidecarHarness {
  final Vertx vertx;
  final SdkUpstream upstream;
  final FakeGate gate;
  final Gate realGate;
  final MemoryExecutionStore store;

  /** Waits the real gate has open on a running execution right now (attached retries). */
  final AtomicInteger gateWaits = new AtomicInteger();

  final Sidecar sidecar;
  final String url;

  private SidecarHarness(UnaryOperator<SidecarOptions.Builder> tune, boolean real)
      throws Exception {
    this(tune, real, null);
  }

  private SidecarHarness(
      UnaryOperator<SidecarOptions.Builder> tune,
      boolean real,
      java.util.function.Function<KeyRing, dev.tally.core.actor.ActorResolver> actors)
      throws Exception {
    vertx =
        Vertx.vertx(
            SidecarOptions.builder(URI.create("http://x/")).eventLoops(2).build().vertxOptions());
    upstream = new SdkUpstream();
    SidecarOptions options =
        tune.apply(SidecarOptions.builder(URI.create(upstream.url())).port(0)).build();
    Future<Sidecar> started;
    if (real) {
      gate = null;
      store = MemoryExecutionStore.create();
      byte[] key = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
      KeyRing ring = KeyRing.of(HmacKey.of("k1", key));
      realGate =
          Gate.builder(
                  new ForwardingExecutionStore(store) {
                    @Override
                    public CompletionStage<Optional<Execution>> awaitChange(
                        ExecutionId id, long afterVersion, Duration maxWait) {
                      gateWaits.incrementAndGet();
                      return super.awaitChange(id, afterVersion, maxWait)
                          .whenComplete((latest, error) -> gateWaits.decrementAndGet());
                    }
                  },
                  ring)
              .options(GateOptions.defaults("it"))
              .contracts(ContractRegistry.defaults())
              .actors(actors != null ? actors.apply(ring) : headers -> "actor-1")
              .clock(Clock.systemUTC())
              .build();
      started = Sidecar.start(vertx, options, realGate);
    } else {
      gate = new FakeGate();
      store = null;
      realGate = null;
      started = Sidecar.start(vertx, options, gate, Clock.systemUTC());
    }
    sidecar = started.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    url = "http://127.0.0.1:" + sidecar.port() + "/mcp";
  }

  static SidecarHarness fake(UnaryOperator<SidecarOptions.Builder> tune) throws Exception {
    return new SidecarHarness(tune, false);
  }

  static SidecarHarness real(UnaryOperator<SidecarOptions.Builder> tune) throws Exception {
    return new SidecarHarness(tune, true);
  }

  /** A sidecar over a real gate whose actors {@code actors} resolves (given the gate's ring). */
  static SidecarHarness real(
      UnaryOperator<SidecarOptions.Builder> tune,
      java.util.function.Function<KeyRing, dev.tally.core.actor.ActorResolver> actors)
      throws Exception {
    return new SidecarHarness(tune, true, actors);
  }

  void close() throws Exception {
    sidecar.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    upstream.close();
    if (realGate != null) {
      realGate.close();
      store.close();
    }
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }
}
