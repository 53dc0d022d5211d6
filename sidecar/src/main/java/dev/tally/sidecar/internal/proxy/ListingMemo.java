package dev.tally.sidecar.internal.proxy;

import java.util.Arrays;

/**
 * The last {@code tools/list} result learned from, so that an unchanged listing (clients list tools
 * often; the answer rarely changes) is not parsed again. Shared by every event loop.
 */
final class ListingMemo {
  private byte[] last;

  /** Whether {@code result} differs from the last listing learned. */
  synchronized boolean isNew(byte[] result) {
    return last == null || !Arrays.equals(last, result);
  }

  /** {@code result} was learned ({@code null}: nothing was, forget the last one). */
  synchronized void learned(byte[] result) {
    last = result;
  }
}
