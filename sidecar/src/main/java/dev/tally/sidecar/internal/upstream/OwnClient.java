package dev.tally.sidecar.internal.upstream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tally.core.mcp.McpNames.HeaderNames;
import dev.tally.core.mcp.MediaTypes;
import dev.tally.core.mcp.RpcOutcome;
import dev.tally.core.mcp.RpcResponseWatcher;
import dev.tally.core.mcp.WireJson;
import dev.tally.sidecar.SidecarOptions;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.Map;

/**
 * The sidecar's own MCP client to the upstream, for the requests it sends itself rather than
 * relays: the tool listing ({@link ToolLister}), confirmed calls and status lookups ({@link
 * ConfirmedCalls}). One HTTP client on {@code upstream.url}, every request bounded by {@code
 * upstream.timeout} without a byte and every answer by {@code upstream.maxResponseBytes}, carrying
 * {@code upstream.listToolsHeaderFile}'s headers and never a client's, unless a caller adds them.
 */
final class OwnClient implements AutoCloseable {
  /** One answer: status, the session it assigned, the JSON-RPC outcome for the request's id. */
  record Answer(int status, String session, RpcOutcome outcome) {}

  /** A request that got no answer; the message says why, naming no value. */
  static final class Failed extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Failed(String message) {
      super(message, null, false, false);
    }
  }

  private final HttpClient client;
  private final URI upstream;
  private final String requestUri;
  private final Map<String, String> headers;
  private final long timeoutMs;
  private final int maxBytes;
  private final WireJson json = WireJson.defaults();

  private OwnClient(Vertx vertx, SidecarOptions options) {
    this.upstream = options.upstream();
    this.client =
        vertx.createHttpClient(
            new HttpClientOptions()
                .setSsl("https".equalsIgnoreCase(upstream.getScheme()))
                .setKeepAlive(true)
                .setDecompressionSupported(false)
                .setConnectTimeout(
                    (int)
                        Math.min(Integer.MAX_VALUE, options.upstreamConnectTimeout().toMillis())));
    String path =
        upstream.getRawPath() == null || upstream.getRawPath().isEmpty()
            ? "/"
            : upstream.getRawPath();
    this.requestUri = upstream.getRawQuery() == null ? path : path + "?" + upstream.getRawQuery();
    this.headers = options.listToolsHeaders();
    this.timeoutMs = options.upstreamTimeout().toMillis();
    this.maxBytes = options.maxResponseBytes();
  }

  static OwnClient create(Vertx vertx, SidecarOptions options) {
    return new OwnClient(vertx, options);
  }

  WireJson json() {
    return json;
  }

  Duration timeout() {
    return Duration.ofMillis(timeoutMs);
  }

  int maxBytes() {
    return maxBytes;
  }

  /** Opens a request of {@code method} on the upstream's MCP endpoint. */
  Future<HttpClientRequest> open(HttpMethod method) {
    return client.request(
        new RequestOptions()
            .setMethod(method)
            .setAbsoluteURI(upstream.resolve(requestUri).toString())
            .setIdleTimeout(timeoutMs));
  }

  /**
   * The own headers, then {@code extra}, on {@code req} (a JSON POST also gets its media types).
   */
  void headers(HttpClientRequest req, MultiMap extra, boolean jsonPost) {
    if (jsonPost) {
      req.headers()
          .set(HttpHeaders.CONTENT_TYPE, MediaTypes.JSON)
          .set(HttpHeaders.ACCEPT, MediaTypes.JSON + ", " + MediaTypes.SSE);
    }
    headers.forEach(req.headers()::set);
    extra.forEach(e -> req.headers().set(e.getKey(), e.getValue()));
  }

  /**
   * POSTs {@code msg} with {@code extra} headers; the answer's outcome for {@code id} ({@code
   * null}: none awaited, the answer is read to its end). Fails with {@link Failed} when no answer
   * came: not reached, broken, or silent for {@code upstream.timeout}.
   */
  Future<Answer> post(ObjectNode msg, MultiMap extra, JsonNode id) {
    byte[] body;
    try {
      body = json.strict().writeValueAsBytes(msg);
    } catch (IOException e) {
      return Future.failedFuture(e);
    }
    return open(HttpMethod.POST)
        .compose(
            req -> {
              headers(req, extra, true);
              return req.send(Buffer.buffer(body));
            })
        .compose(
            resp -> {
              Promise<Answer> answer = Promise.promise();
              String session = resp.getHeader(HeaderNames.SESSION_ID);
              RpcResponseWatcher watcher =
                  id == null
                      ? null
                      : RpcResponseWatcher.forContentType(
                          resp.getHeader(HttpHeaders.CONTENT_TYPE),
                          id,
                          maxBytes,
                          o -> {
                            if (answer.tryComplete(new Answer(resp.statusCode(), session, o))
                                && MediaTypes.isSse(resp.getHeader(HttpHeaders.CONTENT_TYPE))) {
                              // An SSE answer's stream may stay open: it has given what was asked.
                              resp.request().reset();
                            }
                          });
              BrokenAnswer silence = BrokenAnswer.watch(resp, timeout());
              resp.handler(
                  chunk -> {
                    silence.heard();
                    if (watcher != null) {
                      byte[] b = chunk.getBytes();
                      watcher.feed(b, 0, b.length);
                    }
                  });
              resp.exceptionHandler(
                  t -> {
                    silence.done();
                    answer.tryFail(
                        new Failed(
                            silence.cut()
                                ? "no answer within upstream.timeout"
                                : "connection broke (" + t.getClass().getSimpleName() + ")"));
                  });
              resp.endHandler(
                  v -> {
                    silence.done();
                    if (watcher != null) {
                      watcher.end();
                    }
                    answer.tryComplete(new Answer(resp.statusCode(), session, null));
                  });
              return answer.future();
            })
        .recover(
            e ->
                Future.failedFuture(
                    e instanceof Failed
                        ? e
                        : new Failed(
                            "upstream not reached (" + e.getClass().getSimpleName() + ")")));
  }

  /** Ends the session {@code h} names ({@code DELETE}), if any; fire and forget. */
  void endSession(MultiMap h) {
    if (h.get(HeaderNames.SESSION_ID) == null) {
      return;
    }
    open(HttpMethod.DELETE)
        .compose(
            req -> {
              headers(req, h, false);
              return req.send();
            })
        .onSuccess(resp -> resp.handler(b -> {}).exceptionHandler(t -> {}));
  }

  /** The protocol version an {@code initialize} result names, or null. */
  String negotiated(RpcOutcome o) {
    return dev.tally.core.call.OwnCalls.negotiated(o);
  }

  @Override
  public void close() {
    client.close();
  }
}
