package dev.tally.sidecar.internal.proxy;

import dev.tally.core.gate.TallyError;
import dev.tally.sidecar.internal.rpc.ModernHeaders;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import java.util.concurrent.atomic.AtomicBoolean;

/** The sidecar's request handler: endpoint, origin and method checks, then the flows. */
public final class McpHandler implements Handler<HttpServerRequest> {
  private final Proxy proxy;

  private McpHandler(Proxy proxy) {
    this.proxy = proxy;
  }

  public static McpHandler create(Proxy proxy) {
    return new McpHandler(proxy);
  }

  @Override
  public void handle(HttpServerRequest req) {
    proxy.enter();
    AtomicBoolean left = new AtomicBoolean();
    req.response()
        .endHandler(
            v -> {
              if (left.compareAndSet(false, true)) {
                proxy.leave();
              }
            });
    if (proxy.draining()) {
      req.response().headers().set("Connection", "close");
      Replies.refuse(
          req.response(), null, TallyError.Code.SHUTTING_DOWN, "the sidecar is shutting down");
      return;
    }
    if (!proxy.options.path().equals(req.path())) {
      req.response().setStatusCode(404).end();
      return;
    }
    if (!proxy.hosts.allows(req)) {
      Replies.refuse(
          req.response(),
          null,
          TallyError.Code.FORBIDDEN_HOST,
          "the Host header is not allowed (a loopback listener accepts loopback names and"
              + " sidecar.allowedHosts)");
      return;
    }
    if (!proxy.origins.allows(req.getHeader("Origin"))) {
      Replies.refuse(
          req.response(),
          null,
          TallyError.Code.FORBIDDEN_ORIGIN,
          "the Origin header is not allowed");
      return;
    }
    HttpMethod m = req.method();
    if (m == HttpMethod.POST) {
      PostFlow.run(proxy, req);
    } else if (m == HttpMethod.GET) {
      get(req);
    } else {
      // DELETE (end a session), OPTIONS and the rest are the upstream's to answer.
      Forwarder.forward(proxy, req, null, null, new Relay.Mode(null, true, false), idleMs());
    }
  }

  private void get(HttpServerRequest req) {
    boolean modern = ModernHeaders.isModern(req.getHeader("MCP-Protocol-Version"));
    String last = req.getHeader("Last-Event-ID");
    if (last != null && !modern) {
      ResumeFlow.run(proxy, req, last);
      return;
    }
    if (!modern && ResumeFlow.reattach(proxy, req)) {
      return;
    }
    // A standalone server-to-client stream: relayed with sidecar ids, resumable, no idle limit.
    req.headers().remove("Last-Event-ID");
    Forwarder.forward(
        proxy,
        req,
        null,
        null,
        new Relay.Mode(null, false, PostFlow.primingFor(proxy, req, modern)),
        0);
  }

  private long idleMs() {
    return proxy.options.upstreamTimeout().toMillis();
  }
}
