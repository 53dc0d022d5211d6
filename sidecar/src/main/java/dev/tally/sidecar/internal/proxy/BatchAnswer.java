package dev.tally.sidecar.internal.proxy;

import dev.tally.sidecar.internal.stream.Delivery;

/**
 * The answer one element of a JSON-RPC batch contributes to the merged response.
 *
 * @param message the JSON-RPC response bytes, or {@code null} (a notification or a client's
 *     response needs none)
 * @param delivery told whether the merged response carrying {@code message} reached the client
 */
record BatchAnswer(byte[] message, Delivery delivery) {
  static final BatchAnswer NONE = new BatchAnswer(null, Delivery.NONE);

  static BatchAnswer of(byte[] message) {
    return new BatchAnswer(message, Delivery.NONE);
  }
}
