package dev.tally.sidecar.internal.proxy;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tally.core.gate.TallyError;
import dev.tally.sidecar.internal.rpc.JsonRpc;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Splits a JSON-RPC batch (a JSON array) into its elements and classifies each one, so that every
 * {@code tools/call} can go through the gate on its own. Thread-safe.
 *
 * <p>Implementation note: JSON-RPC 2.0 §6 — an element that is not a valid request gets its own
 * error response while the others proceed. A first pass with a lenient streaming parser finds each
 * element's bytes and its top-level {@code id}/{@code method} members (so that a duplicated member
 * is noticed and the id is still known); each object element is then parsed alone with the strict
 * parser (duplicate keys anywhere, depth limit). Problems that make the whole batch ambiguous — no
 * element, too many, two requests with the same id — refuse the batch.
 */
final class BatchSplitter {
  private final JsonRpc json;
  private final JsonFactory lenient;
  private final int maxElements;

  private BatchSplitter(JsonRpc json, int maxElements) {
    this.json = json;
    this.maxElements = maxElements;
    this.lenient =
        JsonFactory.builder()
            .streamReadConstraints(
                StreamReadConstraints.builder().maxNestingDepth(json.maxDepth()).build())
            .build();
  }

  /** A splitter that refuses batches of more than {@code maxElements} elements. */
  static BatchSplitter create(JsonRpc json, int maxElements) {
    if (maxElements < 1) {
      throw new IllegalArgumentException("maxElements must be positive");
    }
    return new BatchSplitter(json, maxElements);
  }

  int maxElements() {
    return maxElements;
  }

  /** Splits the batch in {@code body} (the whole array); never throws on bad input. */
  BatchSplit split(byte[] body) {
    List<BatchElement> out = new ArrayList<>();
    try (JsonParser p = lenient.createParser(body)) {
      if (p.nextToken() != JsonToken.START_ARRAY) {
        return BatchSplit.refused(TallyError.Code.INVALID_REQUEST, "the body is not a JSON array");
      }
      JsonToken t;
      while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
        if (t == null) {
          return BatchSplit.refused(TallyError.Code.PARSE_ERROR, "the batch array is not closed");
        }
        if (out.size() == maxElements) {
          return BatchSplit.refused(
              TallyError.Code.INVALID_REQUEST,
              "the batch has more than sidecar.maxBatchSize (" + maxElements + ") elements");
        }
        int index = out.size();
        if (t != JsonToken.START_OBJECT) {
          p.skipChildren();
          out.add(BatchElement.invalid(index, null, "is not a JSON-RPC object"));
          continue;
        }
        int start = (int) p.currentTokenLocation().getByteOffset();
        Top top = scanTop(p);
        int end = (int) p.currentLocation().getByteOffset();
        out.add(classify(index, body, start, end - start, top));
      }
      if (p.nextToken() != null) {
        return BatchSplit.refused(
            TallyError.Code.PARSE_ERROR, "trailing content after the batch array");
      }
    } catch (StreamConstraintsException e) {
      return BatchSplit.refused(
          TallyError.Code.INVALID_REQUEST,
          "JSON nesting deeper than the limit of " + json.maxDepth() + " levels");
    } catch (IOException e) {
      long at =
          e instanceof JsonProcessingException jpe && jpe.getLocation() != null
              ? jpe.getLocation().getByteOffset()
              : -1;
      return BatchSplit.refused(TallyError.Code.PARSE_ERROR, "malformed JSON near byte " + at);
    }
    if (out.isEmpty()) {
      return BatchSplit.refused(
          TallyError.Code.INVALID_REQUEST, "empty batch (expected: at least one JSON-RPC message)");
    }
    String dup = duplicateId(out);
    if (dup != null) {
      return BatchSplit.refused(TallyError.Code.INVALID_REQUEST, dup);
    }
    return new BatchSplit(List.copyOf(out), null, null);
  }

  /** The top-level members of one object element that decide its kind. */
  private record Top(int methods, int ids, String method, JsonNode id) {}

  private static Top scanTop(JsonParser p) throws IOException {
    int methods = 0;
    int ids = 0;
    String method = null;
    JsonNode id = null;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      JsonToken v = p.nextToken();
      if ("method".equals(name)) {
        methods++;
        method = v == JsonToken.VALUE_STRING ? p.getText() : null;
      } else if ("id".equals(name)) {
        ids++;
        id =
            switch (v) {
              case VALUE_STRING -> JsonNodeFactory.instance.textNode(p.getText());
              case VALUE_NUMBER_INT -> JsonNodeFactory.instance.numberNode(p.getBigIntegerValue());
              default -> null;
            };
      }
      p.skipChildren();
    }
    return new Top(methods, ids, method, id);
  }

  private BatchElement classify(int index, byte[] body, int off, int len, Top top) {
    JsonNode id = top.ids() == 1 ? top.id() : null;
    if (top.methods() > 1) {
      // Servers that keep the last duplicate would run a method the gate never saw.
      return BatchElement.invalid(index, id, "duplicate member \"method\"");
    }
    if (top.ids() > 1) {
      return BatchElement.invalid(index, null, "duplicate member \"id\"");
    }
    JsonNode tree;
    try {
      tree = json.mapper().readTree(body, off, len);
    } catch (StreamConstraintsException e) {
      return BatchElement.invalid(
          index, id, "JSON nesting deeper than the limit of " + json.maxDepth() + " levels");
    } catch (IOException e) {
      String m = e.getMessage();
      return BatchElement.invalid(
          index,
          id,
          m != null && m.startsWith("Duplicate field") ? "duplicate object key" : "malformed JSON");
    }
    ObjectNode obj = (ObjectNode) tree;
    JsonNode rawId = obj.get("id");
    if (rawId != null && !(rawId.isTextual() || rawId.isIntegralNumber() || rawId.isNull())) {
      return BatchElement.invalid(index, null, "/id must be a string or an integer");
    }
    if (!"2.0".equals(obj.path("jsonrpc").asText(null))) {
      return BatchElement.invalid(index, id, "/jsonrpc must be \"2.0\"");
    }
    JsonNode method = obj.get("method");
    if (method == null) {
      if (obj.has("result") || obj.has("error")) {
        return new BatchElement(index, BatchElement.Kind.RESPONSE, null, id, off, len, null);
      }
      return BatchElement.invalid(index, id, "/method is required");
    }
    if (!method.isTextual()) {
      return BatchElement.invalid(index, id, "/method must be a string");
    }
    if ("initialize".equals(method.textValue())) {
      // Its answer carries the new session's header, which a merged answer cannot.
      return BatchElement.invalid(
          index, id, "is an initialize request, which must not be part of a batch");
    }
    if (JsonRpc.TOOLS_CALL.equals(method.textValue())) {
      // ToolCallBody names what is wrong with a call (a missing id included).
      return new BatchElement(
          index, BatchElement.Kind.TOOLS_CALL, JsonRpc.TOOLS_CALL, id, off, len, null);
    }
    if (rawId == null) {
      return new BatchElement(
          index, BatchElement.Kind.NOTIFICATION, method.textValue(), null, off, len, null);
    }
    if (rawId.isNull()) {
      return BatchElement.invalid(index, null, "/id must not be null in an MCP request");
    }
    return new BatchElement(
        index, BatchElement.Kind.REQUEST, method.textValue(), id, off, len, null);
  }

  /** Two requests with one id would make the merged answer ambiguous. */
  private static String duplicateId(List<BatchElement> elements) {
    Map<String, Integer> seen = new HashMap<>();
    for (BatchElement e : elements) {
      if (e.kind() == BatchElement.Kind.RESPONSE || e.kind() == BatchElement.Kind.NOTIFICATION) {
        continue;
      }
      JsonNode id = e.id();
      if (id == null || id.isNull()) {
        continue;
      }
      String key = id.isNumber() ? "n" + id.bigIntegerValue() : "s" + id.textValue();
      Integer prior = seen.putIfAbsent(key, e.index());
      if (prior != null) {
        return "elements "
            + prior
            + " and "
            + e.index()
            + " of the batch share one JSON-RPC id (expected: a distinct id per request)";
      }
    }
    return null;
  }
}
