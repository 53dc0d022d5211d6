package dev.tally.sidecar.internal.proxy;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * One element of a split JSON-RPC batch.
 *
 * @param index position in the batch, from 0
 * @param kind what the element is
 * @param method the element's method, or {@code null}
 * @param id its JSON-RPC id (string or integer node) when one could be read unambiguously, else
 *     {@code null}
 * @param offset where the element's bytes start in the batch body
 * @param length how many bytes it has
 * @param error why the element is invalid ({@code kind == INVALID}), naming the member, never
 *     echoing a value
 */
record BatchElement(
    int index, Kind kind, String method, JsonNode id, int offset, int length, String error) {

  /** What an element is. */
  enum Kind {
    /** A {@code tools/call}: it goes through the gate. */
    TOOLS_CALL,
    /** Any other request: forwarded, its response merged. */
    REQUEST,
    /** A notification: forwarded, nothing merged. */
    NOTIFICATION,
    /** The client's response to a server request: forwarded, nothing merged. */
    RESPONSE,
    /** Not a valid message: answered with its own error. */
    INVALID
  }

  static BatchElement invalid(int index, JsonNode id, String error) {
    return new BatchElement(
        index, Kind.INVALID, null, id, 0, 0, "batch element " + index + " " + error);
  }
}
