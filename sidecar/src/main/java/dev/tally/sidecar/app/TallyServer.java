package dev.tally.sidecar.app;

import dev.tally.core.config.TallyConfig;
import dev.tally.core.gate.Gate;
import dev.tally.core.gate.Operator;
import dev.tally.core.observe.Meter;
import dev.tally.core.runtime.TallyRuntime;
import dev.tally.core.store.ExecutionStore;
import dev.tally.sidecar.Sidecar;
import dev.tally.sidecar.admin.AdminServer;
import dev.tally.sidecar.internal.upstream.ConfirmedCalls;
import dev.tally.telemetry.OtelTelemetry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One running Tally sidecar process: store, key ring, gate, MCP proxy, admin endpoint, upstream
 * probe. {@link #start} wires them from a validated configuration; {@link #stop} drains in the
 * order that loses nothing: stop accepting, let in-flight executions finish (bounded), record the
 * rest as {@code outcome_unknown}, close the store.
 */
public final class TallyServer {
  /** {@code service.name} of the spans and metrics unless {@code OTEL_SERVICE_NAME} is set. */
  public static final String SERVICE_NAME = "tally-sidecar";

  private final Vertx vertx;

  /** How often pending calls are checked for expiry (a retry or a decision checks at once). */
  static final java.time.Duration EXPIRY_SWEEP = dev.tally.core.gate.Confirmations.SWEEP_EVERY;

  private final TallyRuntime runtime;
  private final ExecutionStore store;
  private final Gate gate;
  private final Sidecar sidecar;
  private final AdminServer admin;
  private final UpstreamProbe probe;
  private final SidecarSettings settings;
  private final OtelTelemetry telemetry;
  private volatile boolean stopping;

  private TallyServer(
      Vertx vertx,
      TallyRuntime runtime,
      Sidecar sidecar,
      AdminServer admin,
      UpstreamProbe probe,
      SidecarSettings settings,
      OtelTelemetry telemetry) {
    this.telemetry = telemetry;
    this.vertx = vertx;
    this.runtime = runtime;
    this.store = runtime.store();
    this.gate = runtime.gate();
    this.sidecar = sidecar;
    this.admin = admin;
    this.probe = probe;
    this.settings = settings;
  }

  /**
   * Opens the store and starts everything. Blocks until listening (this is process start-up, not an
   * event loop). {@code log} receives one-line status messages, never secrets.
   */
  public static TallyServer start(
      TallyConfig config, SidecarSettings settings, Clock clock, Consumer<String> log)
      throws Exception {
    return start(config, settings, clock, log, OtelTelemetry.fromEnvironment(SERVICE_NAME));
  }

  /**
   * As {@link #start(TallyConfig, SidecarSettings, Clock, Consumer)}, with {@code telemetry}
   * (closed by {@link #stop}, or here when the start fails).
   */
  public static TallyServer start(
      TallyConfig config,
      SidecarSettings settings,
      Clock clock,
      Consumer<String> log,
      OtelTelemetry telemetry)
      throws Exception {
    Objects.requireNonNull(config, "config");
    // The status tools' client needs Vert.x, which starts after the runtime: bound below.
    java.util.concurrent.atomic.AtomicReference<ConfirmedCalls> calls =
        new java.util.concurrent.atomic.AtomicReference<>();
    TallyRuntime runtime;
    try {
      runtime =
          TallyRuntime.builder(config)
              .statusLookup(
                  (tool, args, headers, modern) -> {
                    ConfirmedCalls c = calls.get();
                    return c == null
                        ? java.util.concurrent.CompletableFuture.completedFuture(
                            java.util.Optional.empty())
                        : c.lookup(tool, args, headers.get("Authorization"), modern)
                            .toCompletionStage();
                  })
              .target(settings.sidecar().upstreamTarget())
              .owner(TallyRuntime.owner("sidecar"))
              .clock(clock)
              .log(log)
              .telemetry(telemetry)
              .open();
    } catch (RuntimeException | Error e) {
      telemetry.close();
      throw e;
    }
    try {
      Vertx vertx = Vertx.vertx(settings.sidecar().vertxOptions());
      if (settings.sidecar().nativeTransport() && !vertx.isNativeTransportEnabled()) {
        Throwable why = vertx.unavailableNativeTransportCause();
        log.accept(
            "tally: sidecar.nativeTransport is on but no native transport is available here ("
                + (why == null ? "unknown reason" : why.getClass().getSimpleName())
                + "); using NIO");
      }
      UpstreamProbe probe = new UpstreamProbe(vertx, settings.sidecar().upstream());
      Sidecar sidecar =
          Sidecar.start(vertx, settings.sidecar(), runtime.gate(), runtime.catalogueKeeper())
              .toCompletionStage()
              .toCompletableFuture()
              .get(30, TimeUnit.SECONDS);
      TallyServer[] self = new TallyServer[1];
      ConfirmedCalls confirmed = ConfirmedCalls.create(vertx, settings.sidecar());
      calls.set(confirmed);
      AdminServer admin =
          AdminServer.start(
                  vertx,
                  settings.admin(),
                  runtime.store(),
                  Operator.create(runtime.store(), clock),
                  config.tools().defaults().resultRetention(),
                  new AdminServer.Probe() {
                    @Override
                    public String notReadyReason() {
                      return self[0] == null ? "starting" : self[0].notReadyReason();
                    }

                    @Override
                    public String metrics() {
                      return self[0] == null ? "" : self[0].metrics();
                    }
                  },
                  new AdminServer.Control(
                      runtime.gate().confirmations(),
                      runtime.gate().writes().writeSwitch(),
                      confirmed::send,
                      clock),
                  settings.sidecar().clients(),
                  sidecar.limitHits())
              .toCompletionStage()
              .toCompletableFuture()
              .get(30, TimeUnit.SECONDS);
      probe.start();
      // Pending calls whose time is up become expired even when nobody asks about them.
      vertx.setPeriodic(
          EXPIRY_SWEEP.toMillis(),
          t -> runtime.gate().confirmations().expireDue().exceptionally(e -> 0));
      runtime
          .gate()
          .confirmations()
          .useBase(
              "http://"
                  + new HostPort(
                      settings.admin().listen().host().equals("0.0.0.0")
                          ? "127.0.0.1"
                          : settings.admin().listen().host(),
                      admin.port()));
      self[0] = new TallyServer(vertx, runtime, sidecar, admin, probe, settings, telemetry);
      self[0].metrics(telemetry.meter());
      return self[0];
    } catch (Exception | Error e) {
      runtime.close();
      telemetry.close();
      throw e;
    }
  }

  public int mcpPort() {
    return sidecar.port();
  }

  public int adminPort() {
    return admin.port();
  }

  public Gate gate() {
    return gate;
  }

  public ExecutionStore store() {
    return store;
  }

  /** {@code null} when ready: the store accepts writes and the upstream answered once. */
  public String notReadyReason() {
    if (stopping) {
      return "draining for shutdown";
    }
    String runtimeProblem = runtime.notReadyReason();
    if (runtimeProblem != null) {
      return runtimeProblem;
    }
    if (!probe.reached()) {
      return "upstream not reached yet";
    }
    return null;
  }

  /** Prometheus text exposition of every metric (docs/metrics.md). */
  public String metrics() {
    return telemetry.prometheusText();
  }

  /** Where this process's spans and metrics go. */
  public OtelTelemetry telemetry() {
    return telemetry;
  }

  /** The sidecar's own gauges; the runtime registered the store's and the gate's. */
  private void metrics(Meter m) {
    m.gauge("tally.up", "1 while the process runs", "", () -> 1);
    m.gauge(
        "tally.ready",
        "1 when the store is writable and the upstream was reached",
        "",
        () -> notReadyReason() == null ? 1 : 0);
    m.gauge(
        "tally.http.requests.in_flight", "MCP HTTP requests being handled", "", sidecar::inFlight);
    m.gauge("tally.sse.streams", "relayed SSE streams kept for resumption", "", sidecar::streams);
    m.gauge(
        "tally.http.connections",
        "client connections open on the MCP port",
        "",
        sidecar::openConnections);
    m.gauge(
        "tally.http.buffered_request_bytes",
        "request-body bytes the MCP port holds (bounded by sidecar.maxBufferedRequestBytes)",
        "",
        sidecar::bufferedRequestBytes);
    m.gauge(
        "tally.sse.buffered_bytes",
        "encoded SSE bytes kept for resumption (bounded by stream.maxTotalBytes)",
        "",
        sidecar::streamBytes);
    m.counter(
        "tally.sse.streams_evicted",
        "streams whose resumption buffer was dropped to keep stream.maxTotalBytes",
        "",
        sidecar::streamEvictions);
    sidecar.limitHits().register(m);
  }

  /**
   * Drains and stops: new requests get 503, in-flight executions may finish within the drain
   * timeout, those still open are recorded {@code outcome_unknown}, then the store is closed.
   * Completes with the number of executions recorded as unknown.
   */
  public int stop() throws Exception {
    stopping = true; // readiness fails first, so load balancers stop sending before the drain
    Duration bound = settings.drainTimeout();
    Future<Void> drained = sidecar.quiesce(bound);
    int abandoned = 0;
    try {
      drained
          .toCompletionStage()
          .toCompletableFuture()
          .get(bound.toMillis() + 5000, TimeUnit.MILLISECONDS);
    } finally {
      // Record what is still running before closing the upstream connections it runs on.
      abandoned = gate.drain(Duration.ZERO).toCompletableFuture().get(10, TimeUnit.SECONDS);
      sidecar.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
      probe.close();
      admin.close().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
      runtime.close(); // the gate, then the store, then the audit journals
      telemetry.close(); // flushes the last spans
    }
    return abandoned;
  }
}
