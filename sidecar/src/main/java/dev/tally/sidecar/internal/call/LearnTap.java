package dev.tally.sidecar.internal.call;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.call.Delivery;
import dev.tally.core.call.ListingLearner;
import dev.tally.sidecar.internal.relay.MessageTap;
import io.vertx.core.Future;

/**
 * Hands the answer to a {@code tools/list} to core's {@link ListingLearner}, and relays it without
 * the tools write control hides from this caller ({@link dev.tally.core.call.ListingFilter}).
 */
public final class LearnTap implements MessageTap {
  private final ListingLearner learner;
  private final JsonNode requestId;
  private boolean done;

  private final java.util.function.Predicate<String> shown;

  public LearnTap(ListingLearner learner, JsonNode requestId) {
    this(learner, requestId, tool -> true);
  }

  /**
   * Also hides from the answer the tools {@code shown} refuses (write control, issue 18); {@code
   * shown} null: nothing is hidden.
   */
  public LearnTap(
      ListingLearner learner, JsonNode requestId, java.util.function.Predicate<String> shown) {
    this.learner = learner;
    this.requestId = requestId;
    this.shown = shown;
  }

  @Override
  public byte[] rewrite(byte[] message) {
    if (shown == null) {
      return message; // nothing is hidden from this caller: no parse
    }
    return dev.tally.core.call.ListingFilter.filter(message, requestId, shown);
  }

  @Override
  public Future<Delivery> onMessage(byte[] message) {
    if (!done) {
      done = learner.message(message, requestId);
    }
    return null;
  }
}
