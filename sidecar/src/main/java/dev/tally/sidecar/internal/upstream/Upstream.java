package dev.tally.sidecar.internal.upstream;

import dev.tally.sidecar.SidecarOptions;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.util.AsciiString;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientConnection;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpConnectOptions;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.SocketAddress;
import java.net.URI;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The pooled keep-alive client to the upstream MCP endpoint, one per event loop. Copies end-to-end
 * request headers and drops hop-by-hop ones (RFC 9110 §7.6.1).
 *
 * <p>Two lanes, two pools. Requests made with {@link #open} (every POST, DELETE and call stream)
 * share the call pool; the session's standalone GET streams, which may stay open for hours, use
 * {@link #openStream} and their own pool, so they never take a call's connection. No connection has
 * a read-idle limit: the silence of an answer is timed per request, from its head or its last chunk
 * ({@link BrokenAnswer}), so a pooled connection's idle history never cuts the next request on it;
 * the wait for a response head is bounded by {@code open}'s {@code idleMs} or by the caller.
 */
public final class Upstream {
  /**
   * Hop-by-hop header names (RFC 9110 §7.6.1, plus {@code Host} and {@code Content-Length}, which
   * the client connection sets), as {@link AsciiString}s: their hashes are cached, so removing them
   * from a {@link MultiMap} costs no per-request lower-casing.
   */
  static final List<AsciiString> HOP_BY_HOP_NAMES =
      List.of(
          HttpHeaderNames.CONNECTION,
          AsciiString.cached("keep-alive"),
          HttpHeaderNames.PROXY_AUTHENTICATE,
          HttpHeaderNames.PROXY_AUTHORIZATION,
          AsciiString.cached("proxy-connection"),
          HttpHeaderNames.TE,
          HttpHeaderNames.TRAILER,
          HttpHeaderNames.TRANSFER_ENCODING,
          HttpHeaderNames.UPGRADE,
          HttpHeaderNames.HOST,
          HttpHeaderNames.CONTENT_LENGTH);

  private final HttpClientAgent client;
  private final HttpClientAgent streamClient;
  private final HttpConnectOptions connect;
  private final long keepAliveNanos;
  private final int maxConnections;
  private volatile UpstreamConnections connections;
  private final URI uri;
  private final String host;
  private final int port;
  private final boolean ssl;
  private final String path;
  private final String ownQuery;
  private final String authority;
  private final SocketAddress server;
  private final long connectTimeoutMs;

  private Upstream(Vertx vertx, SidecarOptions options, int maxConnections) {
    this.uri = options.upstream();
    this.ssl = "https".equalsIgnoreCase(uri.getScheme());
    this.host = uri.getHost();
    this.port = uri.getPort() > 0 ? uri.getPort() : (ssl ? 443 : 80);
    this.path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
    this.ownQuery =
        uri.getRawQuery() == null || uri.getRawQuery().isEmpty() ? null : uri.getRawQuery();
    this.authority = uri.getPort() > 0 ? host + ":" + port : host;
    this.server = SocketAddress.inetSocketAddress(port, host);
    this.connectTimeoutMs = options.upstreamConnectTimeout().toMillis();
    HttpClientOptions co =
        new HttpClientOptions()
            .setKeepAlive(true)
            .setSsl(ssl)
            .setConnectTimeout((int) Math.min(Integer.MAX_VALUE, connectTimeoutMs))
            .setDecompressionSupported(false);
    // No read-idle limit on the connection: Netty counts it from the connection's last read, so a
    // connection pooled idle for most of upstream.timeout would be cut early in its next request.
    // RequestOptions' idle timeout bounds the wait for a response head; BrokenAnswer the silence
    // inside a body.
    this.client =
        vertx
            .httpClientBuilder()
            .with(co)
            .with(new PoolOptions().setHttp1MaxSize(maxConnections))
            .build();
    this.streamClient =
        vertx
            .httpClientBuilder()
            .with(co)
            .with(new PoolOptions().setHttp1MaxSize(maxConnections))
            .build();
    this.maxConnections = maxConnections;
    this.keepAliveNanos = TimeUnit.SECONDS.toNanos(co.getKeepAliveTimeout());
    this.connect =
        new HttpConnectOptions()
            .setServer(server)
            .setHost(host)
            .setPort(port)
            .setSsl(ssl)
            .setConnectTimeout(connectTimeoutMs);
  }

  /** A client with the configured pool size ({@code upstream.maxConnections}). */
  public static Upstream create(Vertx vertx, SidecarOptions options) {
    return new Upstream(vertx, options, options.upstreamMaxConnections());
  }

  /**
   * A client with a pool of at most {@code maxConnections} (one event loop's share of {@code
   * upstream.maxConnections}). Connections are opened on the event loop that asks for them, so a
   * client created and used on one loop keeps its upstream traffic on that loop.
   */
  public static Upstream create(Vertx vertx, SidecarOptions options, int maxConnections) {
    if (maxConnections < 1) {
      throw new IllegalArgumentException("maxConnections must be at least 1");
    }
    return new Upstream(vertx, options, maxConnections);
  }

  /**
   * Called on the event loop that will make every request of this client: up to {@code
   * maxConnections} connections are from now on kept by that loop itself ({@link
   * UpstreamConnections}); the pool is the fallback when they are all busy (so under overload up to
   * twice {@code maxConnections} may be open) or a request comes from another thread.
   */
  public void keepConnectionsOnThisLoop() {
    connections =
        UpstreamConnections.create(
            client, connect, maxConnections, keepAliveNanos, System::nanoTime);
  }

  /**
   * Opens a request to the upstream endpoint carrying the client's end-to-end headers and query, on
   * the call pool. {@code idleMs} bounds the wait for the response head (0: no bound, the caller
   * times it); the relay times the silence of the body. The future fails when no connection could
   * be had: nothing was sent.
   */
  public Future<HttpClientRequest> open(
      HttpMethod method, String query, MultiMap clientHeaders, long idleMs) {
    RequestOptions ro = requestOptions(method, query);
    if (idleMs > 0) {
      ro.setIdleTimeout(idleMs);
    }
    UpstreamConnections loop = connections;
    Future<HttpClientConnection> own = loop == null ? null : loop.acquire();
    Future<HttpClientRequest> opened =
        own == null ? client.request(ro) : own.compose(c -> c.request(ro));
    return opened.map(req -> withHeaders(req, clientHeaders));
  }

  /**
   * Opens a long-lived stream (the session's standalone GET) on the stream pool, without any limit
   * on the wait for its head: the upstream may rightly stay quiet on it for as long as it likes.
   */
  public Future<HttpClientRequest> openStream(
      HttpMethod method, String query, MultiMap clientHeaders) {
    return streamClient
        .request(requestOptions(method, query))
        .map(req -> withHeaders(req, clientHeaders));
  }

  /**
   * The request's options: the upstream URL's path, its own query (kept first: it may carry the
   * upstream's credential, e.g. {@code ?token=…}, which every log and record shows redacted) and
   * the client's query after it.
   */
  private RequestOptions requestOptions(HttpMethod method, String query) {
    String q =
        ownQuery == null
            ? query
            : query == null || query.isEmpty() ? ownQuery : ownQuery + "&" + query;
    return new RequestOptions()
        .setMethod(method)
        .setServer(server)
        .setHost(host)
        .setPort(port)
        .setSsl(ssl)
        .setURI(q == null || q.isEmpty() ? path : path + "?" + q)
        .setConnectTimeout(connectTimeoutMs);
  }

  private HttpClientRequest withHeaders(HttpClientRequest req, MultiMap clientHeaders) {
    MultiMap h = req.headers();
    copyEndToEnd(clientHeaders, h);
    h.set(HttpHeaders.HOST, authority);
    return req;
  }

  /**
   * Copies every header of {@code from} to the empty {@code to}, then removes the hop-by-hop ones:
   * the fixed set and any named by {@code Connection} (RFC 9110 §7.6.1).
   *
   * <p>Implementation note: {@link MultiMap#setAll(MultiMap)} between two Vert.x header maps copies
   * entries without building strings; the removals then hash cached {@link AsciiString}s. Per-name
   * lower-casing and set look-ups cost ~9% of a pass-through request's CPU (bench/README.md).
   */
  public static void copyEndToEnd(MultiMap from, MultiMap to) {
    String connection = from.get(HttpHeaderNames.CONNECTION);
    to.setAll(from);
    for (int i = 0; i < HOP_BY_HOP_NAMES.size(); i++) {
      to.remove(HOP_BY_HOP_NAMES.get(i));
    }
    if (connection != null) {
      removeListed(connection, to);
    }
  }

  /** Whether {@code name} is one of {@link #HOP_BY_HOP_NAMES}, ignoring case. */
  public static boolean isHopByHop(String name) {
    for (int i = 0; i < HOP_BY_HOP_NAMES.size(); i++) {
      if (HOP_BY_HOP_NAMES.get(i).contentEqualsIgnoreCase(name)) {
        return true;
      }
    }
    return false;
  }

  /** Removes the header names listed in a {@code Connection} value. */
  static void removeListed(String connection, MultiMap h) {
    int n = connection.length();
    int start = 0;
    while (start < n) {
      int comma = connection.indexOf(',', start);
      int end = comma < 0 ? n : comma;
      String token = connection.substring(start, end).trim();
      if (!token.isEmpty()) {
        h.remove(token);
      }
      start = end + 1;
    }
  }

  public URI uri() {
    return uri;
  }

  public Future<Void> close() {
    UpstreamConnections loop = connections;
    Future<Void> own = loop == null ? Future.succeededFuture() : loop.closeAll();
    return own.transform(ar -> client.close()).transform(ar -> streamClient.close());
  }
}
