package dev.tally.core.mcp;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;

/**
 * Reads one JSON-RPC message with a streaming parser, without building a tree of its result: the
 * result's position in the input, its {@code isError} and {@code resultType}, the id and the error.
 * The caller slices the result's bytes out of the input instead of re-serializing a tree.
 */
final class ResponseReader {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final JsonFactory FACTORY = MAPPER.getFactory();

  /**
   * What was read.
   *
   * @param id the {@code id}, or {@code null}
   * @param hasMethod the message has a {@code method} (a request or notification, not a response)
   * @param resultStart byte offset of the result object's {@code '{'}, or -1
   * @param resultEnd offset just past the result object's {@code '}'}
   * @param error the error's {@code code} and {@code message} (no {@code data}), or {@code null}
   * @param dataStart byte offset of the error's {@code data} value, or -1
   * @param dataEnd offset just past the error's {@code data} value
   */
  record Message(
      JsonNode id,
      boolean hasMethod,
      int resultStart,
      int resultEnd,
      boolean isError,
      String resultType,
      JsonNode error,
      int dataStart,
      int dataEnd) {}

  private ResponseReader() {}

  static Message read(byte[] b, int len) throws IOException {
    try (JsonParser p = FACTORY.createParser(b, 0, len)) {
      return read(p);
    }
  }

  private static Message read(JsonParser p) throws IOException {
    if (p.nextToken() != JsonToken.START_OBJECT) {
      return null;
    }
    JsonNode id = null;
    JsonNode error = null;
    int[] data = {-1, -1};
    boolean hasMethod = false;
    int start = -1;
    int end = -1;
    boolean isError = false;
    String type = null;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      JsonToken v = p.nextToken();
      switch (name) {
        case "id" -> id = v.isScalarValue() ? MAPPER.readTree(p) : skip(p);
        case "method" -> {
          hasMethod = true;
          p.skipChildren();
        }
        case "error" -> error = v == JsonToken.START_OBJECT ? error(p, data) : MAPPER.readTree(p);
        case "result" -> {
          if (v != JsonToken.START_OBJECT) {
            p.skipChildren();
            continue;
          }
          start = (int) p.currentTokenLocation().getByteOffset();
          while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken fv = p.nextToken();
            if (field.equals("isError")) {
              isError = fv == JsonToken.VALUE_TRUE;
            } else if (field.equals("resultType") && fv == JsonToken.VALUE_STRING) {
              type = p.getText();
            }
            p.skipChildren();
          }
          end = (int) p.currentLocation().getByteOffset();
        }
        default -> p.skipChildren();
      }
    }
    return new Message(id, hasMethod, start, end, isError, type, error, data[0], data[1]);
  }

  /**
   * Reads an error object: {@code code} and {@code message} into a tree, the position of {@code
   * data} into {@code data} (its bytes are sliced, never re-serialized: every digit stays).
   */
  private static JsonNode error(JsonParser p, int[] data) throws IOException {
    com.fasterxml.jackson.databind.node.ObjectNode e = MAPPER.createObjectNode();
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String field = p.currentName();
      JsonToken fv = p.nextToken();
      if (field.equals("data")) {
        data[0] = (int) p.currentTokenLocation().getByteOffset();
        p.skipChildren();
        data[1] = (int) p.currentLocation().getByteOffset();
      } else if (field.equals("code") || field.equals("message")) {
        e.set(field, fv.isScalarValue() ? MAPPER.readTree(p) : skip(p));
      } else {
        p.skipChildren();
      }
    }
    return e;
  }

  private static JsonNode skip(JsonParser p) throws IOException {
    p.skipChildren();
    return null;
  }
}
