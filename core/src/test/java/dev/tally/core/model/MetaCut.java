package dev.tally.core.model;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;

/**
 * Splits a {@code tools/call} request into its {@code params._meta} member and every other byte:
 * the argument-bytes invariant compares the rest byte for byte and the {@code _meta} objects by
 * value. Found with a streaming parser's byte offsets, so nothing is re-serialized.
 */
final class MetaCut {
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * @param rest the request without the {@code "_meta": ...} member (and one comma beside it)
   * @param meta the {@code _meta} object; empty when it was absent or null
   */
  record Parts(byte[] rest, ObjectNode meta) {}

  private MetaCut() {}

  static Parts of(byte[] body) {
    try (JsonParser p = JSON.getFactory().createParser(body)) {
      expect(p.nextToken(), JsonToken.START_OBJECT);
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken v = p.nextToken();
        if ("params".equals(name) && v == JsonToken.START_OBJECT) {
          return inParams(p, body);
        }
        p.skipChildren();
      }
      return new Parts(body, JsonNodeFactory.instance.objectNode());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Parts inParams(JsonParser p, byte[] body) throws IOException {
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      int start = (int) p.currentTokenLocation().getByteOffset();
      JsonToken v = p.nextToken();
      if (!"_meta".equals(name)) {
        p.skipChildren();
        continue;
      }
      JsonNode meta = v == JsonToken.VALUE_NULL ? null : JSON.readTree(p);
      int end = (int) p.currentLocation().getByteOffset();
      ObjectNode m = meta instanceof ObjectNode o ? o : JsonNodeFactory.instance.objectNode();
      return new Parts(cut(body, start, end), m);
    }
    return new Parts(body, JsonNodeFactory.instance.objectNode());
  }

  /** {@code body} without the member in [start, end) and the comma that separates it. */
  private static byte[] cut(byte[] body, int start, int end) {
    int after = end;
    while (after < body.length && isSpace(body[after])) {
      after++;
    }
    if (after < body.length && body[after] == ',') {
      return remove(body, start, after + 1);
    }
    int before = start - 1;
    while (before >= 0 && isSpace(body[before])) {
      before--;
    }
    if (before >= 0 && body[before] == ',') {
      return remove(body, before, end);
    }
    return remove(body, start, end);
  }

  private static byte[] remove(byte[] b, int from, int to) {
    byte[] out = Arrays.copyOf(b, b.length - (to - from));
    System.arraycopy(b, to, out, from, b.length - to);
    return out;
  }

  private static boolean isSpace(byte b) {
    return b == ' ' || b == '\n' || b == '\r' || b == '\t';
  }

  private static void expect(JsonToken t, JsonToken want) {
    if (t != want) {
      throw new IllegalStateException("expected " + want + ", found " + t);
    }
  }
}
