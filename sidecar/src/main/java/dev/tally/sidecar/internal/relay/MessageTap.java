package dev.tally.sidecar.internal.relay;

import dev.tally.core.call.Delivery;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;

/**
 * Watches the JSON-RPC messages of one upstream response (each SSE event's data, or the JSON body)
 * on their way to the client. Called on the upstream response's context, in order.
 */
public interface MessageTap {
  /** The response head arrived, with these headers (before {@link #onHead}). */
  default void onResponseHeaders(MultiMap headers) {}

  /** The response head arrived. */
  default void onHead(int status, boolean sse) {}

  /**
   * One message. Returns {@code null} to relay it now, or a future that completes when it may be
   * relayed, with whom to tell whether it reached the client.
   */
  Future<Delivery> onMessage(byte[] message);

  /**
   * The bytes relayed for {@code message}, after {@link #onMessage} saw it: {@code message} itself
   * unless the tap must change what the client sees (write control hides tools from a {@code
   * tools/list} answer).
   */
  default byte[] rewrite(byte[] message) {
    return message;
  }

  /**
   * Whether the call this tap watches has its outcome recorded already (its answer, or a failure
   * such as a timeout); taps that record nothing say {@code false}.
   */
  default boolean settled() {
    return false;
  }

  /**
   * The client closed its response before the end, and the mode cancels on a client close (a
   * 2026-07-28 client cancelling): the relay resets the upstream request right after this.
   */
  default void onClientClosed() {}

  /** The upstream response ended normally. */
  default void onEnd() {}

  /** The upstream response broke (reset, timeout, parse limit). */
  default void onFailure(String reason) {}

  /** {@link #onEnd()} when {@code failure} is null, else {@link #onFailure(String)}. */
  default void ended(String failure) {
    if (failure == null) {
      onEnd();
    } else {
      onFailure(failure);
    }
  }
}
