package dev.tally.sidecar.internal.call;

import dev.tally.core.call.Delivery;

/**
 * What one element of a JSON-RPC batch contributes to the merged response.
 *
 * @param message the JSON-RPC response bytes, or {@code null} (a notification or a client's
 *     response needs none)
 * @param delivery told whether the merged response carrying {@code message} reached the client
 */
record BatchSlot(byte[] message, Delivery delivery) {
  static final BatchSlot NONE = new BatchSlot(null, Delivery.NONE);

  static BatchSlot of(byte[] message) {
    return new BatchSlot(message, Delivery.NONE);
  }
}
