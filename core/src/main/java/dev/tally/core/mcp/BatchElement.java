package dev.tally.core.mcp;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * One element of a split JSON-RPC batch.
 *
 * @param index position in the batch, from 0
 * @param kind what the element is
 * @param scan the element classified with the rules of a single message ({@link BodyClassifier});
 *     {@code null} for an element that is not an object
 * @param offset where the element's bytes start in the batch body
 * @param length how many bytes it has
 * @param error why the element is invalid ({@code kind == INVALID}), naming its position and the
 *     member, never a value; else {@code null}
 */
public record BatchElement(
    int index, Kind kind, BodyScan scan, int offset, int length, TallyError error) {

  /** What an element is. */
  public enum Kind {
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

  /** The element's JSON-RPC id when it could be read, else {@code null}. */
  public JsonNode id() {
    return scan == null ? null : scan.id();
  }

  /** The element's method, or {@code null}. */
  public String method() {
    return scan == null ? null : scan.method();
  }
}
