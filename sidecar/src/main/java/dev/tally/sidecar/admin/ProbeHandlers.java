package dev.tally.sidecar.admin;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.ext.web.RoutingContext;

/**
 * {@code GET /healthz}, {@code /readyz} and {@code /metrics}: open to probes and scrapers, no token
 * (docs/admin-api.md).
 */
final class ProbeHandlers {
  private final AdminServer.Probe probe;

  ProbeHandlers(AdminServer.Probe probe) {
    this.probe = probe;
  }

  /** 200 {@code {"status":"alive"}} while the process runs. */
  void health(RoutingContext ctx) {
    AdminReplies.json(ctx, 200, AdminReplies.status("alive"));
  }

  /** 200 ready, or 503 with the reason the process would refuse writes. */
  void ready(RoutingContext ctx) {
    String why = probe.notReadyReason();
    if (why == null) {
      AdminReplies.json(ctx, 200, AdminReplies.status("ready"));
    } else {
      ObjectNode o = AdminReplies.status("not_ready");
      o.put("reason", why);
      AdminReplies.json(ctx, 503, o);
    }
  }

  /** Prometheus text exposition. */
  void metrics(RoutingContext ctx) {
    ctx.response()
        .putHeader("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
        .end(probe.metrics());
  }
}
