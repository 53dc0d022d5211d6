package dev.tally.sidecar.internal.proxy;

import dev.tally.core.mcp.ToolParamHeaders;
import dev.tally.sidecar.SidecarOptions;
import dev.tally.sidecar.internal.http.Hosts;
import dev.tally.sidecar.internal.http.Origins;
import dev.tally.sidecar.internal.rpc.JsonRpc;
import dev.tally.sidecar.internal.rpc.RequestScanner;
import dev.tally.sidecar.internal.stream.StreamLimits;
import dev.tally.sidecar.internal.stream.StreamRegistry;
import java.time.InstantSource;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Everything the request handlers of one sidecar share: frozen options, parsers, the admission
 * seam, the stream registry and a few counters, plus the upstream client of one event loop. Each
 * listener instance (one per event loop) gets its own view from {@link #withUpstream(Upstream)}: it
 * shares every piece of state with this one and differs only in the upstream client, so upstream
 * connections stay on the loop of the client connection. Thread-safe.
 */
public final class Proxy {
  final SidecarOptions options;
  final Admission admission;
  final JsonRpc json;
  final RequestScanner requests;
  final BatchSplitter batches;

  /** {@code x-mcp-header} parameters learned from {@code tools/list} answers. */
  final ToolParamHeaders schemas;

  final ListingMemo listings;

  final StreamRegistry streams;
  final Upstream upstream;
  final Origins origins;
  final Hosts hosts;
  final InstantSource clock;
  final String target;
  private final Shared shared;

  /** The mutable state every view of one sidecar shares. */
  private static final class Shared {
    final AtomicInteger active = new AtomicInteger();
    volatile boolean draining;

    /**
     * Whether the upstream answered its last {@code tools/call} with SSE: replays mirror it for
     * clients that accept SSE.
     */
    volatile boolean toolCallsAnswerSse;
  }

  private Proxy(Proxy base, Upstream upstream) {
    this.options = base.options;
    this.admission = base.admission;
    this.json = base.json;
    this.requests = base.requests;
    this.batches = base.batches;
    this.schemas = base.schemas;
    this.listings = base.listings;
    this.streams = base.streams;
    this.upstream = upstream;
    this.origins = base.origins;
    this.hosts = base.hosts;
    this.clock = base.clock;
    this.target = base.target;
    this.shared = base.shared;
  }

  private Proxy(
      SidecarOptions options, Admission admission, Upstream upstream, InstantSource clock) {
    this.shared = new Shared();
    this.options = options;
    this.admission = admission;
    this.json = JsonRpc.create(options.maxJsonDepth());
    this.requests = RequestScanner.create(json);
    this.batches = BatchSplitter.create(json, options.maxBatchSize());
    this.schemas = ToolParamHeaders.create();
    this.listings = new ListingMemo();
    this.streams =
        StreamRegistry.create(
            new StreamLimits(
                options.streamMaxEvents(), options.streamMaxBytes(), options.streamMaxAge()),
            clock);
    this.upstream = upstream;
    this.origins = Origins.of(options.allowedOrigins(), options.allowLoopbackOrigins());
    this.hosts = Hosts.forListener(options.host(), options.allowedHosts());
    this.clock = clock;
    this.target = options.upstream().toString();
  }

  /** A proxy over {@code upstream}; {@code upstream} may be {@code null} for a template. */
  public static Proxy create(
      SidecarOptions options, Admission admission, Upstream upstream, InstantSource clock) {
    return new Proxy(options, admission, upstream, clock);
  }

  /** A view sharing all state with this proxy that sends upstream through {@code upstream}. */
  public Proxy withUpstream(Upstream upstream) {
    return new Proxy(this, Objects.requireNonNull(upstream, "upstream"));
  }

  /** Requests being handled right now (by every view). */
  public int active() {
    return shared.active.get();
  }

  public StreamRegistry streams() {
    return streams;
  }

  public Admission admission() {
    return admission;
  }

  /** From now on new requests are refused with {@code SHUTTING_DOWN}. */
  public void startDraining() {
    shared.draining = true;
  }

  boolean draining() {
    return shared.draining;
  }

  boolean toolCallsAnswerSse() {
    return shared.toolCallsAnswerSse;
  }

  void toolCallsAnswerSse(boolean sse) {
    shared.toolCallsAnswerSse = sse;
  }

  void enter() {
    shared.active.incrementAndGet();
  }

  void leave() {
    shared.active.decrementAndGet();
  }
}
