package dev.tally.sidecar.internal.rpc;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;

/**
 * Reads a JSON-RPC message from the upstream without building a tree: its id, whether it is a
 * result or an error, the byte range of the {@code result} value (so it can be stored verbatim),
 * and the two result fields the gate needs ({@code isError}, {@code resultType}). Thread-safe.
 */
public final class ResponseScanner {
  private final JsonRpc json;

  private ResponseScanner(JsonRpc json) {
    this.json = json;
  }

  public static ResponseScanner create(JsonRpc json) {
    return new ResponseScanner(json);
  }

  /**
   * Scans {@code message}; returns a scan of kind {@code OTHER} for anything that is not a single
   * well-formed response (including malformed JSON). Offsets are relative to {@code message}.
   */
  public ResponseScan scan(byte[] message) {
    try (JsonParser p = json.parser(message, 0, message.length)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return ResponseScan.OTHER;
      }
      JsonNode id = null;
      boolean hasMethod = false;
      ResponseScan.Kind kind = ResponseScan.Kind.OTHER;
      int resultOffset = 0;
      int resultLength = 0;
      boolean isError = false;
      boolean inputRequired = false;
      int code = 0;
      String msg = null;
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken t = p.nextToken();
        switch (name) {
          case "id" -> id = RequestScanner.idNode(p, t);
          case "method" -> {
            hasMethod = true;
            p.skipChildren();
          }
          case "result" -> {
            kind = ResponseScan.Kind.RESULT;
            resultOffset = (int) p.currentTokenLocation().getByteOffset();
            if (t == JsonToken.START_OBJECT) {
              while (p.nextToken() == JsonToken.FIELD_NAME) {
                String f = p.currentName();
                JsonToken v = p.nextToken();
                if ("isError".equals(f)) {
                  isError = v == JsonToken.VALUE_TRUE;
                } else if ("resultType".equals(f) && v == JsonToken.VALUE_STRING) {
                  inputRequired = "input_required".equals(p.getText());
                } else {
                  p.skipChildren();
                }
              }
            } else {
              p.skipChildren();
            }
            resultLength = (int) p.currentLocation().getByteOffset() - resultOffset;
          }
          case "error" -> {
            kind = ResponseScan.Kind.ERROR;
            if (t == JsonToken.START_OBJECT) {
              while (p.nextToken() == JsonToken.FIELD_NAME) {
                String f = p.currentName();
                JsonToken v = p.nextToken();
                if ("code".equals(f) && v == JsonToken.VALUE_NUMBER_INT) {
                  code = p.getIntValue();
                } else if ("message".equals(f) && v == JsonToken.VALUE_STRING) {
                  msg = p.getText();
                } else {
                  p.skipChildren();
                }
              }
            } else {
              p.skipChildren();
            }
          }
          default -> p.skipChildren();
        }
      }
      if (hasMethod) {
        return ResponseScan.OTHER;
      }
      return new ResponseScan(
          kind, id, resultOffset, resultLength, isError, inputRequired, code, msg);
    } catch (IOException e) {
      return ResponseScan.OTHER;
    }
  }
}
