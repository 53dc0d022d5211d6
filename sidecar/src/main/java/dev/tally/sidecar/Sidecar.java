package dev.tally.sidecar;

import dev.tally.core.call.Admission;
import dev.tally.core.call.ToolCatalogue;
import dev.tally.core.gate.Gate;
import dev.tally.sidecar.internal.context.ProxyContext;
import dev.tally.sidecar.internal.proxy.McpListener;
import dev.tally.sidecar.internal.upstream.ToolLister;
import dev.tally.sidecar.internal.upstream.Upstream;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Clock;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A running MCP reverse proxy in front of one upstream MCP endpoint, with the {@link Gate} deciding
 * every {@code tools/call} (ARCHITECTURE.md §7). Non-blocking: everything runs on Vert.x event
 * loops. Start with {@link #start(Vertx, SidecarOptions, Gate)}; stop with {@link #drain(Duration)}
 * or {@link #close()}.
 */
public final class Sidecar {
  /** Keys of shared random ports: a negative port shares one random port per key (Vert.x). */
  private static final AtomicInteger SHARED_RANDOM_PORTS = new AtomicInteger();

  private final Vertx vertx;
  private final String deployment;
  private final List<McpListener> listeners;
  private final ProxyContext proxy;
  private final long sweepTimer;
  private final ToolLister lister;
  private Future<Void> closed;

  private Sidecar(
      Vertx vertx,
      String deployment,
      List<McpListener> listeners,
      ProxyContext proxy,
      long sweepTimer,
      ToolLister lister) {
    this.vertx = vertx;
    this.deployment = deployment;
    this.listeners = listeners;
    this.proxy = proxy;
    this.sweepTimer = sweepTimer;
    this.lister = lister;
  }

  /** {@code notifications/tools/list_changed}, sent when write control changes what is listed. */
  static final byte[] LIST_CHANGED = dev.tally.core.mcp.Notifications.toolsListChanged();

  /** Starts a sidecar on {@code vertx}; the future completes once it is listening. */
  public static Future<Sidecar> start(Vertx vertx, SidecarOptions options, Gate gate) {
    return start(vertx, options, gate, ToolCatalogue.Keeper.NONE);
  }

  /**
   * As {@link #start(Vertx, SidecarOptions, Gate)}, keeping the tool catalogue in {@code keeper}
   * (the store's, {@link dev.tally.core.runtime.TallyRuntime#catalogueKeeper()}).
   */
  public static Future<Sidecar> start(
      Vertx vertx, SidecarOptions options, Gate gate, ToolCatalogue.Keeper keeper) {
    Objects.requireNonNull(gate, "gate");
    return start(vertx, options, Admission.of(gate), Clock.systemUTC(), keeper);
  }

  /**
   * Starts a sidecar over any {@link Admission} (tests script decisions with it) and {@code clock}
   * (stream ages).
   *
   * <p>Implementation note: the MCP listener is deployed as a verticle with one instance per event
   * loop ({@link SidecarOptions#effectiveEventLoops()}), each with its own server on the shared
   * port and its own share of the upstream pool; a server created outside a verticle would put
   * every connection on one loop (bench/README.md, "Sidecar load").
   */
  public static Future<Sidecar> start(
      Vertx vertx, SidecarOptions options, Admission admission, InstantSource clock) {
    return start(vertx, options, admission, clock, ToolCatalogue.Keeper.NONE);
  }

  /**
   * As {@link #start(Vertx, SidecarOptions, Admission, InstantSource)}, keeping the tool catalogue
   * in {@code keeper}. With {@link SidecarOptions#listTools()} the sidecar lists the upstream's
   * tools itself ({@link ToolLister}); the kept catalogue is restored before the listener opens.
   */
  public static Future<Sidecar> start(
      Vertx vertx,
      SidecarOptions options,
      Admission admission,
      InstantSource clock,
      ToolCatalogue.Keeper keeper) {
    Objects.requireNonNull(vertx, "vertx");
    Objects.requireNonNull(options, "options");
    Objects.requireNonNull(admission, "admission");
    Objects.requireNonNull(keeper, "keeper");
    ToolLister lister = options.listTools() ? ToolLister.create(vertx, options) : null;
    ProxyContext proxy =
        ProxyContext.create(
            options,
            admission,
            clock,
            ToolCatalogue.Options.clientsOnly(options.upstreamTarget())
                .withLister(lister)
                .withKeeper(keeper)
                .withClock(clock));
    proxy.intake().catalogue().start();
    // Issue 18: a change of the write switch changes what tools/list shows; tell sessions.
    admission.onToolsChanged(() -> proxy.streams().notifyStandalone(LIST_CHANGED));
    int instances = options.effectiveEventLoops();
    int perLoop = Math.max(1, (options.upstreamMaxConnections() + instances - 1) / instances);
    int port =
        options.port() == 0 && instances > 1
            ? -SHARED_RANDOM_PORTS.incrementAndGet()
            : options.port();
    List<Upstream> upstreams = new ArrayList<>(instances);
    for (int i = 0; i < instances; i++) {
      upstreams.add(Upstream.create(vertx, options, perLoop));
    }
    List<McpListener> listeners = new CopyOnWriteArrayList<>();
    long sweepEvery = Math.max(1000, Math.min(5000, options.streamMaxAge().toMillis() / 4));
    return vertx
        .deployVerticle(
            () -> {
              McpListener l = McpListener.create(proxy, port, upstreams.get(listeners.size()));
              listeners.add(l);
              return l;
            },
            new DeploymentOptions().setInstances(instances))
        .map(
            id -> {
              long timer = vertx.setPeriodic(sweepEvery, t -> proxy.streams().sweep());
              return new Sidecar(vertx, id, List.copyOf(listeners), proxy, timer, lister);
            });
  }

  /** The port the MCP endpoint listens on (the bound one when configured as 0). */
  public int port() {
    return listeners.get(0).port();
  }

  /** Client connections accepted so far by each listener instance (one entry per event loop). */
  public List<Long> connectionsPerListener() {
    List<Long> out = new ArrayList<>(listeners.size());
    for (McpListener l : listeners) {
      out.add(l.connections());
    }
    return out;
  }

  /** HTTP requests being handled right now (the admin API and drain read this). */
  public int inFlight() {
    return proxy.active();
  }

  /** Executions the gate is driving right now. */
  public int executionsInFlight() {
    return proxy.admission().inFlight();
  }

  /** How often each client limit was hit (both ports count here). */
  public LimitHits limitHits() {
    return proxy.limitHits();
  }

  /** Request-body bytes the MCP port buffers right now. */
  public long bufferedRequestBytes() {
    return proxy.budget().used();
  }

  /** Client connections open on the MCP port. */
  public int openConnections() {
    return proxy.guard().open();
  }

  /** Encoded SSE bytes the resumption buffers keep now. */
  public long streamBytes() {
    return proxy.streams().keptBytes();
  }

  /** Streams evicted to keep {@code stream.maxTotalBytes}, since start. */
  public long streamEvictions() {
    return proxy.streams().evictions();
  }

  /** Relayed SSE streams currently kept for resumption. */
  public int streams() {
    return proxy.streams().size();
  }

  /**
   * Stops taking requests (new ones get 503 {@code SHUTTING_DOWN}), lets running ones finish for up
   * to {@code timeout}, then closes.
   */
  public Future<Void> drain(Duration timeout) {
    return quiesce(timeout).transform(ar -> close());
  }

  /** How often a drain looks whether the running requests finished. */
  static final long DRAIN_CHECK_MS = 20;

  /**
   * The first half of {@link #drain}: new requests, on new connections and on open ones alike, are
   * answered 503 {@code SHUTTING_DOWN} with {@code Connection: close} (a client or proxy that still
   * routes to this pod learns why, instead of a refused connection) while the running ones get up
   * to {@code timeout} to finish; then the listeners shut down. The upstream connections stay open,
   * so executions still running upstream can be recorded as unfinished (by the gate) before {@link
   * #close()} cuts them off.
   */
  public Future<Void> quiesce(Duration timeout) {
    proxy.startDraining();
    long deadline = System.nanoTime() + timeout.toNanos();
    io.vertx.core.Promise<Void> idle = io.vertx.core.Promise.promise();
    awaitIdle(idle, deadline);
    return idle.future()
        .compose(
            v -> {
              long left = Math.max(1, (deadline - System.nanoTime()) / 1_000_000);
              List<Future<Void>> shut = new ArrayList<>(listeners.size());
              for (McpListener l : listeners) {
                shut.add(l.shutdown(left));
              }
              return Future.join(shut).mapEmpty();
            });
  }

  /**
   * Completes {@code idle} once no request runs (503 answers end at once), or at {@code deadline}.
   */
  private void awaitIdle(io.vertx.core.Promise<Void> idle, long deadline) {
    if (proxy.active() == 0 || System.nanoTime() - deadline >= 0) {
      idle.tryComplete();
      return;
    }
    vertx.setTimer(DRAIN_CHECK_MS, id -> awaitIdle(idle, deadline));
  }

  /** Closes the listeners, open connections and the upstream pools now. */
  public Future<Void> close() {
    proxy.startDraining();
    synchronized (this) {
      if (closed == null) {
        vertx.cancelTimer(sweepTimer);
        if (lister != null) {
          lister.close();
        }
        closed = vertx.undeploy(deployment);
      }
      return closed;
    }
  }
}
