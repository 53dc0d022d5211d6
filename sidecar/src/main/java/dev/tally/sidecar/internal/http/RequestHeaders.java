package dev.tally.sidecar.internal.http;

import dev.tally.core.mcp.Headers;
import io.vertx.core.http.HttpServerRequest;
import java.util.List;

/**
 * A Vert.x request's headers as core's {@link Headers}, every value of a repeated header included
 * (so that core can refuse a trusted header sent twice). The sidecar does not terminate TLS, so
 * there is no client certificate subject.
 */
public record RequestHeaders(HttpServerRequest request) implements Headers {
  @Override
  public String get(String name) {
    return request.headers().get(name);
  }

  @Override
  public List<String> all(String name) {
    return request.headers().getAll(name);
  }
}
