package dev.tally.sidecar.internal.proxy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.sidecar.internal.rpc.ResponseScan;
import dev.tally.sidecar.internal.stream.Delivery;
import io.vertx.core.Future;

/** Reads the answer to a {@code tools/list} to learn annotations and header parameters. */
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
    ResponseScan scan = proxy.responses.scan(message);
    if (scan.kind() == ResponseScan.Kind.RESULT && scan.answers(requestId)) {
      done = true;
      // A malformed listing teaches nothing; the client still gets it as the upstream sent it.
      proxy.schemas.learn(message, scan.resultOffset(), scan.resultLength(), proxy.json.mapper());
    }
    return null;
  }
}
