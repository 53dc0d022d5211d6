package dev.tally.sidecar.internal.proxy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.mcp.McpRequestHeaders;
import dev.tally.sidecar.internal.stream.Delivery;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpServerRequest;
import java.io.IOException;

/**
 * Watches the answer to an {@code initialize} for the {@code Mcp-Session-Id} the upstream assigns,
 * and reports the new session with the request's client information (for the sessions journal). The
 * messages themselves pass untouched.
 */
final class SessionTap implements MessageTap {
  private final Proxy proxy;
  private final MultiMap requestHeaders;
  private final String clientName;
  private final String clientVersion;
  private final String protocolVersion;

  private SessionTap(
      Proxy proxy,
      MultiMap requestHeaders,
      String clientName,
      String clientVersion,
      String protocolVersion) {
    this.proxy = proxy;
    this.requestHeaders = requestHeaders;
    this.clientName = clientName;
    this.clientVersion = clientVersion;
    this.protocolVersion = protocolVersion;
  }

  /**
   * A tap for the {@code initialize} request in {@code bytes}: its {@code params.clientInfo} and
   * {@code params.protocolVersion} (absent or malformed ones are reported as unknown).
   */
  static SessionTap forInitialize(
      Proxy proxy, HttpServerRequest req, byte[] bytes, int off, int len) {
    JsonNode params;
    try {
      params = proxy.json.mapper().readTree(bytes, off, len).path("params");
    } catch (IOException | RuntimeException e) {
      params = proxy.json.mapper().missingNode();
    }
    return new SessionTap(
        proxy,
        req.headers(),
        text(params.path("clientInfo").path("name")),
        text(params.path("clientInfo").path("version")),
        text(params.path("protocolVersion")));
  }

  private static String text(JsonNode n) {
    return n.isTextual() ? n.textValue() : null;
  }

  @Override
  public void onResponseHeaders(MultiMap headers) {
    String session = headers.get(McpRequestHeaders.SESSION_ID);
    if (session != null && !session.isEmpty()) {
      proxy.admission.sessionStarted(
          session, requestHeaders::get, clientName, clientVersion, protocolVersion);
    }
  }

  @Override
  public Future<Delivery> onMessage(byte[] message) {
    return null;
  }
}
