package dev.tally.sidecar.app;

import dev.tally.core.audit.AuditedExecutionStore;
import dev.tally.core.config.TallyConfig;
import dev.tally.core.gate.Gate;
import dev.tally.core.gate.Operator;
import dev.tally.core.runtime.TallyRuntime;
import dev.tally.core.store.ExecutionStore;
import dev.tally.core.store.MemoryExecutionStore;
import dev.tally.core.store.journal.JournalExecutionStore;
import dev.tally.core.store.journal.JournalStats;
import dev.tally.sidecar.Sidecar;
import dev.tally.sidecar.admin.AdminServer;
import dev.tally.sidecar.internal.upstream.ConfirmedCalls;
import dev.tally.store.postgres.PostgresExecutionStore;
import dev.tally.store.postgres.PostgresStoreStats;
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
  private final Vertx vertx;

  /** How often pending calls are checked for expiry (a retry or a decision checks at once). */
  static final java.time.Duration EXPIRY_SWEEP = java.time.Duration.ofSeconds(15);

  private final TallyRuntime runtime;
  private final ExecutionStore store;
  private final Gate gate;
  private final Sidecar sidecar;
  private final AdminServer admin;
  private final UpstreamProbe probe;
  private final SidecarSettings settings;
  private volatile boolean stopping;

  private TallyServer(
      Vertx vertx,
      TallyRuntime runtime,
      Sidecar sidecar,
      AdminServer admin,
      UpstreamProbe probe,
      SidecarSettings settings) {
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
    Objects.requireNonNull(config, "config");
    // The status tools' client needs Vert.x, which starts after the runtime: bound below.
    java.util.concurrent.atomic.AtomicReference<ConfirmedCalls> calls =
        new java.util.concurrent.atomic.AtomicReference<>();
    TallyRuntime runtime =
        TallyRuntime.builder(config)
            .statusLookup(
                (tool, args, headers) -> {
                  ConfirmedCalls c = calls.get();
                  return c == null
                      ? java.util.concurrent.CompletableFuture.completedFuture(
                          java.util.Optional.empty())
                      : c.lookup(tool, args, headers.get("Authorization")).toCompletionStage();
                })
            .target(settings.sidecar().upstreamTarget())
            .owner(TallyRuntime.owner("sidecar"))
            .clock(clock)
            .log(log)
            .open();
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
      self[0] = new TallyServer(vertx, runtime, sidecar, admin, probe, settings);
      return self[0];
    } catch (Exception | Error e) {
      runtime.close();
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

  /** Prometheus text exposition. */
  public String metrics() {
    StringBuilder b = new StringBuilder(512);
    gauge(b, "tally_up", "1 while the process runs", 1);
    gauge(
        b,
        "tally_ready",
        "1 when the store is writable and the upstream was reached",
        notReadyReason() == null ? 1 : 0);
    gauge(
        b,
        "tally_store_writable",
        "1 while the execution store accepts writes",
        store.isWritable() ? 1 : 0);
    gauge(
        b, "tally_http_requests_in_flight", "MCP HTTP requests being handled", sidecar.inFlight());
    gauge(b, "tally_executions_in_flight", "executions this instance is driving", gate.inFlight());
    gauge(b, "tally_sse_streams", "relayed SSE streams kept for resumption", sidecar.streams());
    gauge(
        b,
        "tally_http_connections",
        "client connections open on the MCP port",
        sidecar.openConnections());
    gauge(
        b,
        "tally_http_buffered_request_bytes",
        "request-body bytes the MCP port holds (bounded by sidecar.maxBufferedRequestBytes)",
        sidecar.bufferedRequestBytes());
    gauge(
        b,
        "tally_sse_buffered_bytes",
        "encoded SSE bytes kept for resumption (bounded by stream.maxTotalBytes)",
        sidecar.streamBytes());
    counter(
        b,
        "tally_sse_streams_evicted_total",
        "streams whose resumption buffer was dropped to keep stream.maxTotalBytes",
        sidecar.streamEvictions());
    sidecar.limitHits().appendPrometheus(b);
    ExecutionStore inner = store instanceof AuditedExecutionStore a ? a.delegate() : store;
    long held = -1;
    if (inner instanceof JournalExecutionStore j) {
      JournalStats s = j.stats();
      counter(b, "tally_journal_fsyncs_total", "fsyncs of the journal", s.fsyncs());
      counter(
          b, "tally_journal_records_total", "records written to the journal", s.recordsWritten());
      counter(b, "tally_journal_bytes_total", "bytes written to the journal", s.bytesWritten());
      counter(
          b,
          "tally_journal_rider_bytes_total",
          "bytes of audit entries written into the journal's frames (included in"
              + " tally_journal_bytes_total)",
          s.riderBytes());
      counter(b, "tally_journal_compactions_total", "journal compactions", s.compactions());
      held = s.executions();
      if (s.maxBytes() > 0) {
        gauge(
            b,
            "tally_journal_store_bytes",
            "estimated heap of the executions the journal store keeps until their retention ends",
            s.executionBytes());
        gauge(
            b,
            "tally_journal_store_max_bytes",
            "the bound beyond which new calls are refused (journal.maxBytes)",
            s.maxBytes());
      }
    }
    if (inner instanceof MemoryExecutionStore m) {
      MemoryExecutionStore.Usage u = m.usage();
      held = u.executions();
      gauge(
          b,
          "tally_memory_store_pinned_bytes",
          "estimated heap of records that must not be evicted (in flight or holding their key)",
          u.pinnedBytes());
      gauge(
          b,
          "tally_memory_store_evictable_bytes",
          "estimated heap of finished records the store may evict",
          u.evictableBytes());
      gauge(
          b,
          "tally_memory_store_max_bytes",
          "the bound on the store's estimated heap (memory.maxBytes)",
          u.maxWeightBytes());
    }
    if (held >= 0) {
      gauge(
          b,
          "tally_store_executions",
          "executions the store holds in memory (each until its retention ends and it is purged)",
          held);
    }
    if (inner instanceof PostgresExecutionStore p) {
      PostgresStoreStats s = p.stats();
      counter(
          b,
          "tally_store_round_trips_total",
          "statements sent to PostgreSQL for store operations, one round trip each",
          s.roundTrips());
      counter(
          b,
          "tally_store_notify_statements_total",
          "statements that announced committed changes to other replicas (batched, off the path)",
          s.notifyStatements());
      counter(
          b,
          "tally_store_outages_total",
          "store operations that failed because PostgreSQL was unavailable",
          s.outages());
      counter(
          b,
          "tally_store_notifications_total",
          "change notifications received from PostgreSQL",
          s.notifications());
      gauge(
          b,
          "tally_store_listening",
          "1 while the store receives change notifications",
          s.listening() ? 1 : 0);
    }
    return b.toString();
  }

  private static void gauge(StringBuilder b, String name, String help, long v) {
    b.append("# HELP ").append(name).append(' ').append(help).append('\n');
    b.append("# TYPE ")
        .append(name)
        .append(" gauge\n")
        .append(name)
        .append(' ')
        .append(v)
        .append('\n');
  }

  private static void counter(StringBuilder b, String name, String help, long v) {
    b.append("# HELP ").append(name).append(' ').append(help).append('\n');
    b.append("# TYPE ")
        .append(name)
        .append(" counter\n")
        .append(name)
        .append(' ')
        .append(v)
        .append('\n');
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
    }
    return abandoned;
  }
}
