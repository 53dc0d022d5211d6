package dev.tally.sidecar.internal.proxy;

import dev.tally.sidecar.SidecarOptions;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.net.URI;
import java.util.Locale;
import java.util.Set;

/**
 * The pooled keep-alive client to the upstream MCP endpoint. Copies end-to-end request headers and
 * drops hop-by-hop ones (RFC 9110 §7.6.1).
 */
public final class Upstream {
  static final Set<String> HOP_BY_HOP =
      Set.of(
          "connection",
          "keep-alive",
          "proxy-authenticate",
          "proxy-authorization",
          "proxy-connection",
          "te",
          "trailer",
          "transfer-encoding",
          "upgrade",
          "host",
          "content-length");

  private final HttpClientAgent client;
  private final URI uri;
  private final String host;
  private final int port;
  private final boolean ssl;
  private final String path;
  private final String authority;
  private final long connectTimeoutMs;

  private Upstream(Vertx vertx, SidecarOptions options) {
    this.uri = options.upstream();
    this.ssl = "https".equalsIgnoreCase(uri.getScheme());
    this.host = uri.getHost();
    this.port = uri.getPort() > 0 ? uri.getPort() : (ssl ? 443 : 80);
    this.path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
    this.authority = uri.getPort() > 0 ? host + ":" + port : host;
    this.connectTimeoutMs = options.upstreamConnectTimeout().toMillis();
    HttpClientOptions co =
        new HttpClientOptions()
            .setKeepAlive(true)
            .setSsl(ssl)
            .setConnectTimeout((int) Math.min(Integer.MAX_VALUE, connectTimeoutMs))
            .setDecompressionSupported(false);
    this.client =
        vertx
            .httpClientBuilder()
            .with(co)
            .with(new PoolOptions().setHttp1MaxSize(options.upstreamMaxConnections()))
            .build();
  }

  public static Upstream create(Vertx vertx, SidecarOptions options) {
    return new Upstream(vertx, options);
  }

  /**
   * Opens a request to the upstream endpoint carrying the client's end-to-end headers and query.
   * The future fails when no connection could be had: nothing was sent.
   */
  Future<HttpClientRequest> open(
      HttpMethod method, String query, MultiMap clientHeaders, long idleMs) {
    RequestOptions ro =
        new RequestOptions()
            .setMethod(method)
            .setHost(host)
            .setPort(port)
            .setSsl(ssl)
            .setURI(query == null ? path : path + "?" + query)
            .setConnectTimeout(connectTimeoutMs);
    if (idleMs > 0) {
      ro.setIdleTimeout(idleMs);
    }
    return client
        .request(ro)
        .map(
            req -> {
              MultiMap h = req.headers();
              for (var e : clientHeaders) {
                if (!HOP_BY_HOP.contains(e.getKey().toLowerCase(Locale.ROOT))) {
                  h.add(e.getKey(), e.getValue());
                }
              }
              h.set(HttpHeaders.HOST, authority);
              return req;
            });
  }

  public URI uri() {
    return uri;
  }

  public Future<Void> close() {
    return client.close();
  }
}
