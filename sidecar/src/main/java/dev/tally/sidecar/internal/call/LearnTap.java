package dev.tally.sidecar.internal.call;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.call.Delivery;
import dev.tally.core.call.ListingLearner;
import dev.tally.sidecar.internal.relay.MessageTap;
import io.vertx.core.Future;

/** Hands the answer to a {@code tools/list} to core's {@link ListingLearner}; changes nothing. */
public final class LearnTap implements MessageTap {
  private final ListingLearner learner;
  private final JsonNode requestId;
  private boolean done;

  public LearnTap(ListingLearner learner, JsonNode requestId) {
    this.learner = learner;
    this.requestId = requestId;
  }

  @Override
  public Future<Delivery> onMessage(byte[] message) {
    if (!done) {
      done = learner.message(message, requestId);
    }
    return null;
  }
}
