package dev.tally.sidecar.internal.proxy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.mcp.RpcOutcome;
import dev.tally.core.mcp.RpcResponseWatcher;
import dev.tally.core.mcp.ToolListing;
import dev.tally.sidecar.internal.stream.Delivery;
import io.vertx.core.Future;
import java.io.IOException;

/**
 * Reads the answer to a {@code tools/list} to learn annotations (into the contracts) and header
 * parameters ({@link ToolListing#learn}).
 */
final class LearnTap implements MessageTap {
  private final Proxy proxy;
  private final JsonNode requestId;
  private boolean done;

  LearnTap(Proxy proxy, JsonNode requestId) {
    this.proxy = proxy;
    this.requestId = requestId;
  }

  @Override
  public Future<Delivery> onMessage(byte[] message) {
    if (done) {
      return null;
    }
    if (RpcResponseWatcher.outcomeOf(message, requestId) instanceof RpcOutcome.Result r) {
      done = true;
      if (!proxy.listings.isNew(r.result())) {
        return null;
      }
      try {
        ToolListing.learn(
            proxy.json.mapper().readTree(r.result()), proxy.admission.contracts(), proxy.schemas);
        proxy.listings.learned(r.result());
      } catch (IOException | RuntimeException e) {
        // A malformed listing teaches nothing; the client still gets it as the upstream sent it.
        proxy.listings.learned(null);
      }
    }
    return null;
  }
}
