package dev.tally.sidecar.it;

import dev.tally.core.contract.ContractRegistry;
import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.fingerprint.HmacKey;
import dev.tally.core.fingerprint.KeyRing;
import dev.tally.core.gate.Gate;
import dev.tally.core.gate.GateOptions;
import dev.tally.core.store.MemoryExecutionStore;
import dev.tally.sidecar.Sidecar;
import dev.tally.sidecar.SidecarOptions;
import io.vertx.core.Vertx;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;

/**
 * A sidecar with a real {@link Gate} over a fresh memory store (test key {@code k1}, every caller
 * {@code actor-1}), as the end-to-end tests start it; {@link #close()} stops it, then the gate and
 * the store. The caller owns the {@link Vertx}.
 */
final class GatedSidecar implements AutoCloseable {
  private static final byte[] KEY =
      "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

  final MemoryExecutionStore store;
  final Gate gate;
  final Sidecar sidecar;

  private GatedSidecar(MemoryExecutionStore store, Gate gate, Sidecar sidecar) {
    this.store = store;
    this.gate = gate;
    this.sidecar = sidecar;
  }

  /** Starts one on {@code vertx}; {@code instance} names the gate (lease owner). */
  static GatedSidecar start(
      Vertx vertx, SidecarOptions options, ContractRegistry contracts, String instance)
      throws Exception {
    MemoryExecutionStore store = MemoryExecutionStore.create();
    Gate gate =
        Gate.builder(store, KeyRing.of(HmacKey.of("k1", KEY)))
            .options(GateOptions.defaults(instance))
            .contracts(contracts)
            .actors(headers -> "actor-1")
            .clock(Clock.systemUTC())
            .build();
    try {
      Sidecar sidecar =
          Sidecar.start(vertx, options, gate)
              .toCompletionStage()
              .toCompletableFuture()
              .get(10, TimeUnit.SECONDS);
      return new GatedSidecar(store, gate, sidecar);
    } catch (Exception e) {
      gate.close();
      store.close();
      throw e;
    }
  }

  /**
   * The execution's state once {@code done} holds for it, or its state after {@code max} of waiting
   * (on store changes, not polling); empty if the store does not know it.
   */
  Optional<ExecutionState> awaitState(ExecutionId id, Predicate<ExecutionState> done, Duration max)
      throws Exception {
    long deadline = System.nanoTime() + max.toNanos();
    Optional<Execution> e = store.find(id).toCompletableFuture().get(5, TimeUnit.SECONDS);
    while (e.isPresent() && !done.test(e.get().state()) && System.nanoTime() < deadline) {
      store
          .awaitChange(id, e.get().version(), Duration.ofMillis(500))
          .toCompletableFuture()
          .get(5, TimeUnit.SECONDS);
      e = store.find(id).toCompletableFuture().get(5, TimeUnit.SECONDS);
    }
    return e.map(Execution::state);
  }

  /** The MCP endpoint clients use. */
  String url() {
    return "http://127.0.0.1:" + sidecar.port() + "/mcp";
  }

  @Override
  public void close() throws ExecutionException, TimeoutException {
    try {
      sidecar.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while stopping the sidecar", e);
    } finally {
      gate.close();
      store.close();
    }
  }
}
