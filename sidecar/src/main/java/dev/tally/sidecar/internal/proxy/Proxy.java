package dev.tally.sidecar.internal.proxy;

import dev.tally.core.mcp.ToolParamHeaders;
import dev.tally.sidecar.SidecarOptions;
import dev.tally.sidecar.internal.rpc.JsonRpc;
import dev.tally.sidecar.internal.rpc.RequestScanner;
import dev.tally.sidecar.internal.stream.StreamLimits;
import dev.tally.sidecar.internal.stream.StreamRegistry;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Everything the request handlers of one sidecar share: frozen options, parsers, the admission
 * seam, the upstream client, the stream registry and a few counters. Thread-safe.
 */
public final class Proxy {
  final SidecarOptions options;
  final Admission admission;
  final JsonRpc json;
  final RequestScanner requests;
  final BatchSplitter batches;

  /** {@code x-mcp-header} parameters learned from {@code tools/list} answers. */
  final ToolParamHeaders schemas;

  final StreamRegistry streams;
  final Upstream upstream;
  final Origins origins;
  final String target;
  private final AtomicInteger active = new AtomicInteger();
  private volatile boolean draining;

  /**
   * Whether the upstream answered its last {@code tools/call} with SSE: replays mirror it for
   * clients that accept SSE.
   */
  volatile boolean toolCallsAnswerSse;

  private Proxy(
      SidecarOptions options, Admission admission, Upstream upstream, InstantSource clock) {
    this.options = options;
    this.admission = admission;
    this.json = JsonRpc.create(options.maxJsonDepth());
    this.requests = RequestScanner.create(json);
    this.batches = BatchSplitter.create(json, options.maxBatchSize());
    this.schemas = ToolParamHeaders.create();
    this.streams =
        StreamRegistry.create(
            new StreamLimits(
                options.streamMaxEvents(), options.streamMaxBytes(), options.streamMaxAge()),
            clock);
    this.upstream = upstream;
    this.origins = Origins.of(options.allowedOrigins(), options.allowLoopbackOrigins());
    this.target = options.upstream().toString();
  }

  public static Proxy create(
      SidecarOptions options, Admission admission, Upstream upstream, InstantSource clock) {
    return new Proxy(options, admission, upstream, clock);
  }

  /** Requests being handled right now. */
  public int active() {
    return active.get();
  }

  public StreamRegistry streams() {
    return streams;
  }

  public Admission admission() {
    return admission;
  }

  /** From now on new requests are refused with {@code SHUTTING_DOWN}. */
  public void startDraining() {
    draining = true;
  }

  boolean draining() {
    return draining;
  }

  void enter() {
    active.incrementAndGet();
  }

  void leave() {
    active.decrementAndGet();
  }
}
