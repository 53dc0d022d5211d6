package dev.tally.sidecar.app;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import java.net.URI;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Learns whether the upstream MCP server was reached at least once (for {@code /readyz}): any HTTP
 * answer counts, whatever its status. Retries every second until it succeeds, then stops.
 */
final class UpstreamProbe {
  private final Vertx vertx;
  private final URI upstream;
  private final HttpClient client;
  private final AtomicBoolean reached = new AtomicBoolean();
  private volatile long timer = -1;

  UpstreamProbe(Vertx vertx, URI upstream) {
    this.vertx = vertx;
    this.upstream = upstream;
    this.client =
        vertx.createHttpClient(
            new HttpClientOptions()
                .setConnectTimeout(2000)
                .setSsl("https".equals(upstream.getScheme()))
                .setTrustAll(false));
  }

  void start() {
    probe();
  }

  boolean reached() {
    return reached.get();
  }

  private void probe() {
    int port =
        upstream.getPort() != -1
            ? upstream.getPort()
            : "https".equals(upstream.getScheme()) ? 443 : 80;
    RequestOptions ro =
        new RequestOptions()
            .setMethod(HttpMethod.GET)
            .setHost(upstream.getHost())
            .setPort(port)
            .setURI(
                upstream.getRawPath() == null || upstream.getRawPath().isEmpty()
                    ? "/"
                    : upstream.getRawPath())
            .putHeader("Accept", "text/event-stream")
            .setIdleTimeout(2000);
    client
        .request(ro)
        .compose(req -> req.send())
        .compose(
            resp -> {
              reached.set(true);
              resp.request().connection().close();
              return Future.succeededFuture();
            })
        .onFailure(err -> timer = vertx.setTimer(1000, t -> probe()));
  }

  Future<Void> close() {
    if (timer >= 0) {
      vertx.cancelTimer(timer);
    }
    return client.close();
  }
}
