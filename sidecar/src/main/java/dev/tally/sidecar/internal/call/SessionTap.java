package dev.tally.sidecar.internal.call;

import dev.tally.core.call.Admission;
import dev.tally.core.call.Delivery;
import dev.tally.core.mcp.InitializeInfo;
import dev.tally.core.mcp.McpNames.HeaderNames;
import dev.tally.sidecar.internal.relay.MessageTap;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;

/**
 * Watches the answer to an {@code initialize} for the {@code Mcp-Session-Id} the upstream assigns,
 * and reports the new session with the request's client information (for the sessions journal). The
 * messages themselves pass untouched.
 */
public final class SessionTap implements MessageTap {
  private final Admission admission;
  private final MultiMap requestHeaders;
  private final InitializeInfo info;

  public SessionTap(Admission admission, MultiMap requestHeaders, InitializeInfo info) {
    this.admission = admission;
    this.requestHeaders = requestHeaders;
    this.info = info;
  }

  @Override
  public void onResponseHeaders(MultiMap headers) {
    String session = headers.get(HeaderNames.SESSION_ID);
    if (session != null && !session.isEmpty()) {
      admission.sessionStarted(
          session,
          requestHeaders::get,
          info.clientName(),
          info.clientVersion(),
          info.protocolVersion());
    }
  }

  @Override
  public Future<Delivery> onMessage(byte[] message) {
    return null;
  }
}
