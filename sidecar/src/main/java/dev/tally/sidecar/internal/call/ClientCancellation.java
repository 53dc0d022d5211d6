package dev.tally.sidecar.internal.call;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.mcp.BodyScan;
import dev.tally.core.mcp.Era;
import dev.tally.core.mcp.McpNames.HeaderNames;
import dev.tally.core.mcp.McpNames.Methods;
import dev.tally.core.mcp.Notifications;
import dev.tally.sidecar.internal.context.ProxyContext;
import io.vertx.core.http.HttpServerRequest;

/**
 * A client's {@code notifications/cancelled} on its way upstream (2025-03-26 … 2025-11-25
 * transports): the dispatched call it names on the client's session learns that its client gave up
 * on it ({@link DispatchTap}); the notification itself goes on to the upstream unchanged, which may
 * stop the tool.
 */
public final class ClientCancellation {
  private ClientCancellation() {}

  /**
   * If the message {@code scan} ({@code len} bytes of {@code b} from {@code off}) that {@code req}
   * carries is a {@code notifications/cancelled}, tells the call it names; returns whether one was
   * in flight.
   */
  public static boolean notice(
      ProxyContext ctx, HttpServerRequest req, BodyScan scan, byte[] b, int off, int len) {
    if (scan.kind() != BodyScan.Kind.NOTIFICATION || !Methods.CANCELLED.equals(scan.method())) {
      return false;
    }
    if (Era.ofHeader(req.getHeader(HeaderNames.PROTOCOL_VERSION)) != Era.LEGACY) {
      return false;
    }
    JsonNode requestId = Notifications.cancelledRequestId(ctx.json(), b, off, len);
    return requestId != null
        && ctx.cancels().cancel(req.getHeader(HeaderNames.SESSION_ID), requestId);
  }
}
