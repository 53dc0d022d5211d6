package dev.tally.sidecar;

import dev.tally.core.config.UrlRedaction;
import dev.tally.sidecar.internal.http.Hosts;
import io.vertx.core.VertxOptions;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Frozen options of a {@link Sidecar}. Build with {@link #builder(URI)}; every option has a
 * documented default constant. Validation messages name the configuration key ({@code sidecar.*},
 * {@code upstream.*}, {@code stream.*}).
 *
 * @param host address the MCP endpoint listens on ({@code sidecar.host}, default {@value
 *     #DEFAULT_HOST})
 * @param port port of the MCP endpoint, 0 for any ({@code sidecar.port}, default {@value
 *     #DEFAULT_PORT})
 * @param upstream the upstream MCP endpoint, e.g. {@code http://127.0.0.1:3000/mcp} ({@code
 *     upstream.url}); userinfo ({@code user:password@}) is refused. Show or record it only as
 *     {@link #upstreamTarget()}
 * @param path the path the sidecar serves ({@code sidecar.path}, default: the upstream's path)
 * @param allowedOrigins {@code Origin} values allowed besides loopback ones ({@code
 *     sidecar.allowedOrigins}, default none); {@code *} allows any
 * @param allowLoopbackOrigins whether {@code http(s)://localhost|127.0.0.1|[::1]} origins on any
 *     port are allowed ({@code sidecar.allowLoopbackOrigins}, default true)
 * @param allowedHosts {@code Host} names allowed besides loopback ones ({@code
 *     sidecar.allowedHosts}, default none); {@code *} allows any. On a listener bound to loopback
 *     only loopback names and these pass; beyond loopback the check is off unless names are given
 *     (DNS rebinding, {@link dev.tally.sidecar.internal.http.Hosts})
 * @param maxRequestBytes largest request body accepted, else 413 ({@code limits.maxRequestBytes},
 *     default {@value #DEFAULT_MAX_REQUEST_BYTES})
 * @param maxJsonDepth deepest JSON nesting accepted in bodies Tally parses ({@code
 *     sidecar.maxJsonDepth}, default {@value #DEFAULT_MAX_JSON_DEPTH})
 * @param maxResponseBytes largest upstream JSON answer or SSE event the sidecar reads whole ({@code
 *     upstream.maxResponseBytes}, default {@value #DEFAULT_MAX_RESPONSE_BYTES})
 * @param upstreamTimeout longest wait for the upstream's answer to a POST ({@code
 *     upstream.timeout}, default {@link #DEFAULT_UPSTREAM_TIMEOUT})
 * @param upstreamConnectTimeout longest wait for a connection ({@code upstream.connectTimeout},
 *     default {@link #DEFAULT_UPSTREAM_CONNECT_TIMEOUT})
 * @param upstreamMaxConnections pooled keep-alive connections to the upstream ({@code
 *     upstream.maxConnections}, default {@value #DEFAULT_UPSTREAM_MAX_CONNECTIONS})
 * @param streamMaxEvents events kept per relayed SSE stream for resumption ({@code
 *     stream.maxEvents}, default {@value #DEFAULT_STREAM_MAX_EVENTS})
 * @param streamMaxBytes encoded bytes kept per stream ({@code stream.maxBytes}, default {@value
 *     #DEFAULT_STREAM_MAX_BYTES})
 * @param streamMaxAge how long events, ended and unattended streams are kept ({@code
 *     stream.maxAge}, default {@link #DEFAULT_STREAM_MAX_AGE})
 * @param primingEvents send a priming event (id, empty data) first on relayed streams of clients at
 *     protocol 2025-11-25 or later, so they can resume ({@code stream.priming}, default true)
 * @param eventLoops event-loop threads for the {@link io.vertx.core.Vertx} that runs the sidecar, 0
 *     for {@code min(2, cores)} ({@code sidecar.eventLoops}); used by {@link #vertxOptions()}
 * @param nativeTransport prefer epoll/io_uring when available ({@code sidecar.nativeTransport},
 *     default false); used by {@link #vertxOptions()}
 * @param maxBatchSize most elements a JSON-RPC batch (protocol 2025-03-26) may hold, else the batch
 *     is refused ({@code sidecar.maxBatchSize}, default {@value #DEFAULT_MAX_BATCH_SIZE})
 * @param upstreamCancelGrace how long a dispatched call its client cancelled ({@code
 *     notifications/cancelled}) may still bring its answer before it is recorded {@code
 *     outcome_unknown} ({@code upstream.cancelGrace}, default {@link
 *     #DEFAULT_UPSTREAM_CANCEL_GRACE})
 * @param listTools whether the sidecar lists the upstream's tools itself, on its own MCP session,
 *     at start, for an unknown tool name and on {@code notifications/tools/list_changed} ({@code
 *     upstream.listTools}; {@code tally serve} default true, this builder's default false so that
 *     an embedded sidecar sends nothing it was not asked to)
 * @param listToolsHeaders headers the sidecar's own listing session sends (a service credential
 *     from {@code upstream.listToolsHeaderFile}; default none). Never shown: {@link #toString()}
 *     omits them
 * @param clients connection caps, timeouts, buffered-byte budgets and the HTTP/2 switch of both
 *     ports ({@code sidecar.maxConnections} and neighbours, default {@link ClientLimits#DEFAULT})
 * @param streamMaxTotalBytes encoded bytes all relayed SSE streams may keep for resumption
 *     together; past it whole streams are evicted, ended ones first ({@code stream.maxTotalBytes},
 *     default 0: an eighth of the heap, at most 256 MiB; {@link #effectiveStreamMaxTotalBytes()})
 */
public record SidecarOptions(
    String host,
    int port,
    URI upstream,
    String path,
    List<String> allowedOrigins,
    boolean allowLoopbackOrigins,
    List<String> allowedHosts,
    int maxRequestBytes,
    int maxJsonDepth,
    int maxResponseBytes,
    Duration upstreamTimeout,
    Duration upstreamConnectTimeout,
    int upstreamMaxConnections,
    int streamMaxEvents,
    long streamMaxBytes,
    Duration streamMaxAge,
    boolean primingEvents,
    int eventLoops,
    boolean nativeTransport,
    int maxBatchSize,
    Duration upstreamCancelGrace,
    boolean listTools,
    Map<String, String> listToolsHeaders,
    ClientLimits clients,
    long streamMaxTotalBytes) {

  public static final String DEFAULT_HOST = "127.0.0.1";
  public static final int DEFAULT_PORT = 8080;
  public static final int DEFAULT_MAX_REQUEST_BYTES = 4 * 1024 * 1024;
  public static final int DEFAULT_MAX_JSON_DEPTH = 64;

  /** The shallowest JSON depth limit the sidecar accepts (MCP envelopes nest several levels). */
  public static final int MIN_JSON_DEPTH = 8;

  public static final int DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;
  public static final Duration DEFAULT_UPSTREAM_TIMEOUT = Duration.ofSeconds(120);
  public static final Duration DEFAULT_UPSTREAM_CONNECT_TIMEOUT = Duration.ofSeconds(5);
  public static final int DEFAULT_UPSTREAM_MAX_CONNECTIONS = 64;
  public static final int DEFAULT_STREAM_MAX_EVENTS = 1024;
  public static final long DEFAULT_STREAM_MAX_BYTES = 4L * 1024 * 1024;
  public static final Duration DEFAULT_STREAM_MAX_AGE = Duration.ofMinutes(5);
  public static final int DEFAULT_MAX_BATCH_SIZE = 64;
  public static final int MAX_BATCH_SIZE_LIMIT = 1024;
  public static final Duration DEFAULT_UPSTREAM_CANCEL_GRACE = Duration.ofSeconds(5);

  public SidecarOptions {
    require(host != null && !host.isBlank(), "sidecar.host", host, "a host name or address");
    require(port >= 0 && port <= 65535, "sidecar.port", port, "0..65535");
    Objects.requireNonNull(upstream, "upstream.url");
    require(
        !UrlRedaction.hasUserInfo(upstream),
        "upstream.url",
        UrlRedaction.ofText(upstream.toString()),
        NO_CREDENTIALS);
    String scheme =
        upstream.getScheme() == null ? "" : upstream.getScheme().toLowerCase(Locale.ROOT);
    require(
        (scheme.equals("http") || scheme.equals("https")) && upstream.getHost() != null,
        "upstream.url",
        UrlRedaction.ofText(upstream.toString()),
        "an absolute http(s) URL");
    if (path == null || path.isEmpty()) {
      path =
          upstream.getRawPath() == null || upstream.getRawPath().isEmpty()
              ? "/"
              : upstream.getRawPath();
    }
    require(path.startsWith("/"), "sidecar.path", path, "a path starting with /");
    allowedOrigins = List.copyOf(allowedOrigins == null ? List.of() : allowedOrigins);
    allowedHosts = List.copyOf(allowedHosts == null ? List.of() : allowedHosts);
    for (String h : allowedHosts) {
      require(
          Hosts.isValidName(h),
          "sidecar.allowedHosts",
          h,
          "host names like mcp.example.com (no scheme, path or port), or *");
    }
    require(maxRequestBytes > 0, "limits.maxRequestBytes", maxRequestBytes, "a positive size");
    require(
        maxJsonDepth >= MIN_JSON_DEPTH,
        "sidecar.maxJsonDepth",
        maxJsonDepth,
        "at least " + MIN_JSON_DEPTH);
    require(maxResponseBytes > 0, "upstream.maxResponseBytes", maxResponseBytes, "a positive size");
    requirePositive(upstreamTimeout, "upstream.timeout");
    requirePositive(upstreamConnectTimeout, "upstream.connectTimeout");
    require(
        upstreamMaxConnections > 0,
        "upstream.maxConnections",
        upstreamMaxConnections,
        "a positive count");
    require(streamMaxEvents > 0, "stream.maxEvents", streamMaxEvents, "a positive count");
    require(streamMaxBytes > 0, "stream.maxBytes", streamMaxBytes, "a positive size");
    requirePositive(streamMaxAge, "stream.maxAge");
    require(eventLoops >= 0, "sidecar.eventLoops", eventLoops, "0 (auto) or a positive count");
    require(
        maxBatchSize >= 1 && maxBatchSize <= MAX_BATCH_SIZE_LIMIT,
        "sidecar.maxBatchSize",
        maxBatchSize,
        "an integer from 1 to " + MAX_BATCH_SIZE_LIMIT);
    require(
        upstreamCancelGrace != null && !upstreamCancelGrace.isNegative(),
        "upstream.cancelGrace",
        upstreamCancelGrace,
        "a duration of 0 or more");
    clients = clients == null ? ClientLimits.DEFAULT : clients;
    require(
        streamMaxTotalBytes >= 0,
        "stream.maxTotalBytes",
        streamMaxTotalBytes,
        "0 (an eighth of the heap) or a positive size");
    listToolsHeaders =
        java.util.Collections.unmodifiableMap(
            new java.util.LinkedHashMap<>(listToolsHeaders == null ? Map.of() : listToolsHeaders));
  }

  /**
   * What a refused {@code upstream.url} with userinfo is told: the sidecar never sends userinfo
   * upstream, and a URL is copied into logs, process listings and the audit chain.
   */
  public static final String NO_CREDENTIALS =
      "a URL without a user name or password: Tally never sends them to the upstream, and a URL"
          + " ends up in logs, process listings and the audit chain; let clients send their"
          + " Authorization header, which the sidecar passes through, or give the upstream its"
          + " credential from a Secret";

  /**
   * The upstream as it may be logged or recorded ({@link UrlRedaction#of}): no userinfo, no
   * fragment, credential-looking query values redacted. The audit {@code target}.
   */
  public String upstreamTarget() {
    return UrlRedaction.of(upstream);
  }

  /** Options with every default, in front of {@code upstream}. */
  public static Builder builder(URI upstream) {
    return new Builder(upstream);
  }

  /** This record as a builder, to change a few options. */
  public Builder toBuilder() {
    Builder b = new Builder(upstream);
    b.host = host;
    b.port = port;
    b.path = path;
    b.allowedOrigins = allowedOrigins;
    b.allowLoopbackOrigins = allowLoopbackOrigins;
    b.allowedHosts = allowedHosts;
    b.maxRequestBytes = maxRequestBytes;
    b.maxJsonDepth = maxJsonDepth;
    b.maxResponseBytes = maxResponseBytes;
    b.upstreamTimeout = upstreamTimeout;
    b.upstreamConnectTimeout = upstreamConnectTimeout;
    b.upstreamMaxConnections = upstreamMaxConnections;
    b.streamMaxEvents = streamMaxEvents;
    b.streamMaxBytes = streamMaxBytes;
    b.streamMaxAge = streamMaxAge;
    b.primingEvents = primingEvents;
    b.eventLoops = eventLoops;
    b.nativeTransport = nativeTransport;
    b.maxBatchSize = maxBatchSize;
    b.upstreamCancelGrace = upstreamCancelGrace;
    b.listTools = listTools;
    b.listToolsHeaders = listToolsHeaders;
    b.clients = clients;
    b.streamMaxTotalBytes = streamMaxTotalBytes;
    return b;
  }

  /**
   * {@link VertxOptions} sized for a proxy (PERFORMANCE.md: one or two event loops beat the default
   * on two cores), for callers that create the {@code Vertx} the sidecar runs on.
   */
  public VertxOptions vertxOptions() {
    return new VertxOptions()
        .setEventLoopPoolSize(effectiveEventLoops())
        .setPreferNativeTransport(nativeTransport);
  }

  /**
   * The event loops the sidecar uses: {@link #eventLoops()}, or {@code min(2, cores)} when it is 0.
   * The MCP listener runs one instance (server and upstream pool) per loop.
   */
  public int effectiveEventLoops() {
    int loops =
        eventLoops > 0 ? eventLoops : Math.min(2, Runtime.getRuntime().availableProcessors());
    return Math.max(1, loops);
  }

  /**
   * {@link #streamMaxTotalBytes()}, or when it is 0 an eighth of this JVM's maximum heap, at most
   * 256 MiB, at least {@link #streamMaxBytes()}.
   */
  public long effectiveStreamMaxTotalBytes() {
    if (streamMaxTotalBytes > 0) {
      return streamMaxTotalBytes;
    }
    long auto = Math.min(256L << 20, Runtime.getRuntime().maxMemory() / 8);
    return Math.max(auto, Math.min(streamMaxBytes, 256L << 20));
  }

  /** Names the endpoints; the upstream as {@link #upstreamTarget()}, never with its secrets. */
  @Override
  public String toString() {
    return "SidecarOptions["
        + host
        + ":"
        + port
        + path
        + " -> "
        + upstreamTarget()
        + ", eventLoops="
        + eventLoops
        + "]";
  }

  private static void require(boolean ok, String key, Object value, String expected) {
    if (!ok) {
      throw new IllegalArgumentException(key + ": " + value + " (expected: " + expected + ")");
    }
  }

  private static void requirePositive(Duration d, String key) {
    require(d != null && !d.isNegative() && !d.isZero(), key, d, "a positive duration");
  }

  /** Builds {@link SidecarOptions}; starts from the documented defaults. */
  public static final class Builder {
    private final URI upstream;
    private String host = DEFAULT_HOST;
    private int port = DEFAULT_PORT;
    private String path;
    private List<String> allowedOrigins = List.of();
    private boolean allowLoopbackOrigins = true;
    private List<String> allowedHosts = List.of();
    private int maxRequestBytes = DEFAULT_MAX_REQUEST_BYTES;
    private int maxJsonDepth = DEFAULT_MAX_JSON_DEPTH;
    private int maxResponseBytes = DEFAULT_MAX_RESPONSE_BYTES;
    private Duration upstreamTimeout = DEFAULT_UPSTREAM_TIMEOUT;
    private Duration upstreamConnectTimeout = DEFAULT_UPSTREAM_CONNECT_TIMEOUT;
    private int upstreamMaxConnections = DEFAULT_UPSTREAM_MAX_CONNECTIONS;
    private int streamMaxEvents = DEFAULT_STREAM_MAX_EVENTS;
    private long streamMaxBytes = DEFAULT_STREAM_MAX_BYTES;
    private Duration streamMaxAge = DEFAULT_STREAM_MAX_AGE;
    private boolean primingEvents = true;
    private int eventLoops;
    private boolean nativeTransport;
    private int maxBatchSize = DEFAULT_MAX_BATCH_SIZE;
    private Duration upstreamCancelGrace = DEFAULT_UPSTREAM_CANCEL_GRACE;
    private boolean listTools;
    private Map<String, String> listToolsHeaders = Map.of();
    private ClientLimits clients = ClientLimits.DEFAULT;
    private long streamMaxTotalBytes;

    private Builder(URI upstream) {
      this.upstream = upstream;
    }

    public Builder host(String v) {
      host = v;
      return this;
    }

    public Builder port(int v) {
      port = v;
      return this;
    }

    public Builder path(String v) {
      path = v;
      return this;
    }

    public Builder allowedOrigins(List<String> v) {
      allowedOrigins = v;
      return this;
    }

    public Builder allowLoopbackOrigins(boolean v) {
      allowLoopbackOrigins = v;
      return this;
    }

    public Builder allowedHosts(List<String> v) {
      allowedHosts = v;
      return this;
    }

    public Builder maxRequestBytes(int v) {
      maxRequestBytes = v;
      return this;
    }

    public Builder maxJsonDepth(int v) {
      maxJsonDepth = v;
      return this;
    }

    public Builder maxResponseBytes(int v) {
      maxResponseBytes = v;
      return this;
    }

    public Builder upstreamTimeout(Duration v) {
      upstreamTimeout = v;
      return this;
    }

    public Builder upstreamConnectTimeout(Duration v) {
      upstreamConnectTimeout = v;
      return this;
    }

    public Builder upstreamMaxConnections(int v) {
      upstreamMaxConnections = v;
      return this;
    }

    public Builder streamMaxEvents(int v) {
      streamMaxEvents = v;
      return this;
    }

    public Builder streamMaxBytes(long v) {
      streamMaxBytes = v;
      return this;
    }

    public Builder streamMaxAge(Duration v) {
      streamMaxAge = v;
      return this;
    }

    public Builder primingEvents(boolean v) {
      primingEvents = v;
      return this;
    }

    public Builder eventLoops(int v) {
      eventLoops = v;
      return this;
    }

    public Builder nativeTransport(boolean v) {
      nativeTransport = v;
      return this;
    }

    public Builder maxBatchSize(int v) {
      maxBatchSize = v;
      return this;
    }

    public Builder upstreamCancelGrace(Duration v) {
      upstreamCancelGrace = v;
      return this;
    }

    public Builder listTools(boolean v) {
      listTools = v;
      return this;
    }

    /** Headers of the sidecar's own listing session (names and values as sent). */
    public Builder listToolsHeaders(Map<String, String> v) {
      listToolsHeaders = v;
      return this;
    }

    /** Connection caps, timeouts and budgets of both ports. */
    public Builder clients(ClientLimits v) {
      clients = v;
      return this;
    }

    /** Bytes all SSE resumption buffers may keep together; 0 for an eighth of the heap. */
    public Builder streamMaxTotalBytes(long v) {
      streamMaxTotalBytes = v;
      return this;
    }

    public SidecarOptions build() {
      return new SidecarOptions(
          host,
          port,
          upstream,
          path,
          allowedOrigins,
          allowLoopbackOrigins,
          allowedHosts,
          maxRequestBytes,
          maxJsonDepth,
          maxResponseBytes,
          upstreamTimeout,
          upstreamConnectTimeout,
          upstreamMaxConnections,
          streamMaxEvents,
          streamMaxBytes,
          streamMaxAge,
          primingEvents,
          eventLoops,
          nativeTransport,
          maxBatchSize,
          upstreamCancelGrace,
          listTools,
          listToolsHeaders,
          clients,
          streamMaxTotalBytes);
    }
  }
}
