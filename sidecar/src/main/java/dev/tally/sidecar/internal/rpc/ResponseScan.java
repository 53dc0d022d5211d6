package dev.tally.sidecar.internal.rpc;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Arrays;

/**
 * What a streaming scan of one upstream JSON-RPC message found.
 *
 * @param kind a result, an error, or anything else (a request or notification from the server)
 * @param id the response id, or {@code null}
 * @param resultOffset where the {@code result} value starts in the scanned bytes
 * @param resultLength its length in bytes
 * @param isError the result's {@code isError} is {@code true}
 * @param inputRequired the result's {@code resultType} is {@code input_required} (MRTR)
 * @param errorCode the error's code (when {@code kind == ERROR})
 * @param errorMessage the error's message (when {@code kind == ERROR}); never logged
 */
public record ResponseScan(
    Kind kind,
    JsonNode id,
    int resultOffset,
    int resultLength,
    boolean isError,
    boolean inputRequired,
    int errorCode,
    String errorMessage) {

  /** The kind of a scanned message. */
  public enum Kind {
    RESULT,
    ERROR,
    OTHER
  }

  static final ResponseScan OTHER = new ResponseScan(Kind.OTHER, null, 0, 0, false, false, 0, null);

  /** The exact bytes of the {@code result} value, copied out of {@code message}. */
  public byte[] result(byte[] message) {
    return Arrays.copyOfRange(message, resultOffset, resultOffset + resultLength);
  }

  /** The message answers the request with id {@code requestId} (ids compare by JSON value). */
  public boolean answers(JsonNode requestId) {
    return kind != Kind.OTHER && id != null && requestId != null && idEquals(id, requestId);
  }

  private static boolean idEquals(JsonNode a, JsonNode b) {
    if (a.isNumber() && b.isNumber()) {
      return a.bigIntegerValue().equals(b.bigIntegerValue());
    }
    return a.equals(b);
  }
}
