package dev.tally.sidecar.internal.context;

import dev.tally.core.call.Admission;
import dev.tally.core.call.CallIntake;
import dev.tally.core.call.ToolCatalogue;
import dev.tally.core.mcp.BatchSplitter;
import dev.tally.core.mcp.BodyClassifier;
import dev.tally.core.mcp.ProtocolVersions;
import dev.tally.core.mcp.WireJson;
import dev.tally.core.observe.Telemetry;
import dev.tally.sidecar.ClientLimits;
import dev.tally.sidecar.LimitHits;
import dev.tally.sidecar.SidecarOptions;
import dev.tally.sidecar.internal.http.BodyBudget;
import dev.tally.sidecar.internal.http.BodyReader;
import dev.tally.sidecar.internal.http.ConnectionGuard;
import dev.tally.sidecar.internal.http.Hosts;
import dev.tally.sidecar.internal.http.Origins;
import dev.tally.sidecar.internal.stream.StreamLimits;
import dev.tally.sidecar.internal.stream.StreamRegistry;
import dev.tally.sidecar.internal.upstream.Upstream;
import java.time.InstantSource;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What every request of one sidecar shares: the frozen options, core's wire layer and call
 * pipeline, the stream registry, the listener checks and a little mutable state, plus the upstream
 * client of one event loop. Each listener instance (one per event loop) gets its own view from
 * {@link #withUpstream(Upstream)}: it shares every piece of state with this one and differs only in
 * the upstream client, so upstream connections stay on the loop of the client connection.
 * Thread-safe.
 */
public final class ProxyContext {
  private final SidecarOptions options;
  private final Admission admission;
  private final WireJson json;
  private final BodyClassifier classifier;
  private final BatchSplitter batches;
  private final CallIntake intake;
  private final StreamRegistry streams;
  private final CancelTargets cancels;
  private final Upstream upstream;
  private final Origins origins;
  private final Hosts hosts;
  private final InstantSource clock;
  private final String target;
  private final Shared shared;
  private final LimitHits limitHits;
  private final ConnectionGuard guard;
  private final BodyBudget budget;
  private final BodyReader.Limits bodyLimits;

  /** The mutable state every view of one sidecar shares. */
  private static final class Shared {
    final AtomicInteger active = new AtomicInteger();
    volatile boolean draining;

    /**
     * Whether the upstream answered its last {@code tools/call} with SSE: Tally's own answers
     * mirror it for clients that accept SSE.
     */
    volatile boolean toolCallsAnswerSse;
  }

  private ProxyContext(ProxyContext base, Upstream upstream) {
    this.options = base.options;
    this.admission = base.admission;
    this.json = base.json;
    this.classifier = base.classifier;
    this.batches = base.batches;
    this.intake = base.intake;
    this.streams = base.streams;
    this.cancels = base.cancels;
    this.upstream = upstream;
    this.origins = base.origins;
    this.hosts = base.hosts;
    this.clock = base.clock;
    this.target = base.target;
    this.shared = base.shared;
    this.limitHits = base.limitHits;
    this.guard = base.guard;
    this.budget = base.budget;
    this.bodyLimits = base.bodyLimits;
  }

  private ProxyContext(
      SidecarOptions options,
      Admission admission,
      InstantSource clock,
      ToolCatalogue.Options catalogue) {
    this.shared = new Shared();
    this.options = options;
    this.admission = admission;
    this.json = WireJson.create(options.maxJsonDepth());
    this.classifier = BodyClassifier.create(json);
    this.batches = BatchSplitter.create(classifier, options.maxBatchSize());
    this.target = options.upstreamTarget();
    this.intake = CallIntake.create(admission, json, target, catalogue);
    this.streams =
        StreamRegistry.create(
            new StreamLimits(
                options.streamMaxEvents(),
                options.streamMaxBytes(),
                options.streamMaxAge(),
                options.effectiveStreamMaxTotalBytes()),
            clock);
    this.cancels = new CancelTargets();
    this.upstream = null;
    this.origins = Origins.of(options.allowedOrigins(), options.allowLoopbackOrigins());
    this.hosts = Hosts.forListener(options.host(), options.allowedHosts());
    this.clock = clock;
    this.limitHits = new LimitHits();
    ClientLimits cl = options.clients();
    this.guard = ConnectionGuard.create(cl, limitHits, LimitHits.Port.MCP);
    this.budget = BodyBudget.of(cl.effectiveMaxBufferedBytes());
    this.bodyLimits =
        new BodyReader.Limits(
            options.maxRequestBytes(), cl.bodyTimeout(), budget, limitHits, LimitHits.Port.MCP);
  }

  /**
   * The template every listener's view is made from; it has no upstream client. Tools are learned
   * from clients' {@code tools/list} only.
   */
  public static ProxyContext create(
      SidecarOptions options, Admission admission, InstantSource clock) {
    return create(
        options, admission, clock, ToolCatalogue.Options.clientsOnly(options.upstreamTarget()));
  }

  /** As {@link #create(SidecarOptions, Admission, InstantSource)}, with {@code catalogue}. */
  public static ProxyContext create(
      SidecarOptions options,
      Admission admission,
      InstantSource clock,
      ToolCatalogue.Options catalogue) {
    Objects.requireNonNull(options, "options");
    Objects.requireNonNull(admission, "admission");
    Objects.requireNonNull(clock, "clock");
    Objects.requireNonNull(catalogue, "catalogue");
    return new ProxyContext(options, admission, clock, catalogue);
  }

  /** A view sharing all state with this one that sends upstream through {@code upstream}. */
  public ProxyContext withUpstream(Upstream upstream) {
    return new ProxyContext(this, Objects.requireNonNull(upstream, "upstream"));
  }

  public SidecarOptions options() {
    return options;
  }

  /** Where spans and metrics go (the gate's). */
  public Telemetry telemetry() {
    return admission.telemetry();
  }

  public Admission admission() {
    return admission;
  }

  public WireJson json() {
    return json;
  }

  public BodyClassifier classifier() {
    return classifier;
  }

  public BatchSplitter batches() {
    return batches;
  }

  /** Core's call pipeline: every {@code tools/call} and every header check goes through it. */
  public CallIntake intake() {
    return intake;
  }

  public StreamRegistry streams() {
    return streams;
  }

  /** The dispatched calls a client's {@code notifications/cancelled} can reach. */
  public CancelTargets cancels() {
    return cancels;
  }

  /** This view's upstream client. */
  public Upstream upstream() {
    return upstream;
  }

  public Origins origins() {
    return origins;
  }

  public Hosts hosts() {
    return hosts;
  }

  public InstantSource clock() {
    return clock;
  }

  /** The upstream's identity in action records. */
  public String target() {
    return target;
  }

  /**
   * Whether a client at {@code protocolVersion} (the {@code MCP-Protocol-Version} header) gets a
   * priming event on the streams the sidecar opens: a legacy-era client at 2025-11-25 or later
   * (older clients may not expect an event without data), when priming is enabled.
   */
  public boolean primes(String protocolVersion) {
    return options.primingEvents() && ProtocolVersions.expectsPriming(protocolVersion);
  }

  /** {@code upstream.timeout} in milliseconds. */
  public long upstreamTimeoutMs() {
    return options.upstreamTimeout().toMillis();
  }

  /** {@code upstream.cancelGrace} in milliseconds. */
  public long cancelGraceMs() {
    return options.upstreamCancelGrace().toMillis();
  }

  /** Requests being handled right now (by every view). */
  public int active() {
    return shared.active.get();
  }

  /** From now on new requests are refused with {@code SHUTTING_DOWN}. */
  public void startDraining() {
    shared.draining = true;
  }

  public boolean draining() {
    return shared.draining;
  }

  public boolean toolCallsAnswerSse() {
    return shared.toolCallsAnswerSse;
  }

  public void toolCallsAnswerSse(boolean sse) {
    shared.toolCallsAnswerSse = sse;
  }

  /** The limit counters of both ports. */
  public LimitHits limitHits() {
    return limitHits;
  }

  /** The MCP port's connection caps and timers. */
  public ConnectionGuard guard() {
    return guard;
  }

  /** The MCP port's request-body budget. */
  public BodyBudget budget() {
    return budget;
  }

  /** What a request body read on the MCP port is held to. */
  public BodyReader.Limits bodyLimits() {
    return bodyLimits;
  }

  public void enter() {
    shared.active.incrementAndGet();
  }

  public void leave() {
    shared.active.decrementAndGet();
  }
}
