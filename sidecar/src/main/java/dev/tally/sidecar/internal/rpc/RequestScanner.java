package dev.tally.sidecar.internal.rpc;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.io.IOException;

/**
 * Finds the top-level {@code method} and {@code id} of a JSON-RPC body with Jackson's streaming
 * parser, skipping everything else: no tree is built (PERFORMANCE.md). With {@code stopEarly} the
 * scan ends as soon as both the method and the id are known, leaving the rest of the body (its
 * syntax and depth) to whoever parses it fully: the gate path for {@code tools/call}, the upstream
 * for everything else. Thread-safe.
 */
public final class RequestScanner {
  private final JsonRpc json;

  private RequestScanner(JsonRpc json) {
    this.json = json;
  }

  public static RequestScanner create(JsonRpc json) {
    return new RequestScanner(json);
  }

  /** Scans {@code len} bytes of {@code body} from {@code off}. Never throws on bad input. */
  public RequestScan scan(byte[] body, int off, int len, boolean stopEarly) {
    try (JsonParser p = json.parser(body, off, len)) {
      JsonToken first = p.nextToken();
      if (first == JsonToken.START_OBJECT) {
        return scanObject(p, stopEarly);
      }
      if (first == JsonToken.START_ARRAY) {
        return scanBatch(p);
      }
      return RequestScan.invalid("body is not a JSON-RPC object or batch", false);
    } catch (StreamConstraintsException e) {
      return RequestScan.invalid(
          "JSON nesting deeper than the limit of " + json.maxDepth() + " levels", true);
    } catch (IOException e) {
      return RequestScan.invalid("malformed JSON near byte " + offset(e), false);
    }
  }

  private static RequestScan scanObject(JsonParser p, boolean stopEarly) throws IOException {
    String method = null;
    JsonNode id = null;
    boolean sawId = false;
    boolean sawMethod = false;
    boolean version2 = false;
    RequestScan.Call call = null;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      JsonToken t = p.nextToken();
      if ("method".equals(name)) {
        if (sawMethod) {
          // Servers that keep the last duplicate would run a method the gate never saw.
          return RequestScan.invalid("duplicate member \"method\" in the JSON-RPC object", false);
        }
        sawMethod = true;
        method = t == JsonToken.VALUE_STRING ? p.getText() : null;
        if (t != JsonToken.VALUE_STRING) {
          p.skipChildren();
        }
      } else if ("id".equals(name) && !sawId) {
        sawId = true;
        id = idNode(p, t);
      } else if ("params".equals(name) && t == JsonToken.START_OBJECT) {
        call = scanParams(p);
      } else if ("jsonrpc".equals(name) && t == JsonToken.VALUE_STRING) {
        version2 = "2.0".equals(p.getText());
      } else {
        p.skipChildren();
      }
      if (stopEarly && method != null && sawId) {
        return new RequestScan(RequestScan.Shape.MESSAGE, method, id, false, null, false);
      }
    }
    // Read to the end so trailing garbage and unbalanced input are refused like any parse error.
    if (p.nextToken() != null) {
      return RequestScan.invalid("trailing content after the JSON-RPC object", false);
    }
    boolean wellFormedCall =
        JsonRpc.TOOLS_CALL.equals(method) && version2 && id != null && !id.isNull();
    return new RequestScan(
        RequestScan.Shape.MESSAGE, method, id, false, null, false, wellFormedCall ? call : null);
  }

  /**
   * Reads the members of a {@code params} object (the parser is on its start): {@code name} must be
   * a non-empty string, {@code arguments} and {@code _meta} objects or null, as {@link
   * ToolCallBody#parse} requires; {@code null} when they are not.
   */
  private static RequestScan.Call scanParams(JsonParser p) throws IOException {
    String tool = null;
    String metaVersion = null;
    boolean ok = true;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      JsonToken t = p.nextToken();
      switch (name) {
        case "name" -> {
          if (t == JsonToken.VALUE_STRING) {
            tool = p.getText();
          } else {
            ok = false;
            p.skipChildren();
          }
        }
        case "arguments" -> {
          ok &= t == JsonToken.START_OBJECT || t == JsonToken.VALUE_NULL;
          p.skipChildren();
        }
        case "_meta" -> {
          if (t == JsonToken.START_OBJECT) {
            metaVersion = scanMeta(p);
          } else {
            ok &= t == JsonToken.VALUE_NULL;
            p.skipChildren();
          }
        }
        default -> p.skipChildren();
      }
    }
    return ok && tool != null && !tool.isEmpty() ? new RequestScan.Call(tool, metaVersion) : null;
  }

  /** The protocol version in a {@code _meta} object (the parser is on its start), or null. */
  private static String scanMeta(JsonParser p) throws IOException {
    String version = null;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      JsonToken t = p.nextToken();
      if (t == JsonToken.VALUE_STRING && ToolCallBody.PROTOCOL_VERSION_META.equals(name)) {
        version = p.getText();
      } else {
        p.skipChildren();
      }
    }
    return version;
  }

  private static RequestScan scanBatch(JsonParser p) throws IOException {
    String first = null;
    boolean toolsCall = false;
    int count = 0;
    JsonToken t;
    while ((t = p.nextToken()) == JsonToken.START_OBJECT) {
      count++;
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken v = p.nextToken();
        if ("method".equals(name) && v == JsonToken.VALUE_STRING) {
          String m = p.getText();
          if (first == null) {
            first = m;
          }
          toolsCall |= JsonRpc.TOOLS_CALL.equals(m);
        } else {
          p.skipChildren();
        }
      }
    }
    if (t != JsonToken.END_ARRAY) {
      return RequestScan.invalid("a batch element is not a JSON object", false);
    }
    if (count == 0) {
      return RequestScan.invalid("empty batch", false);
    }
    if (p.nextToken() != null) {
      return RequestScan.invalid("trailing content after the batch", false);
    }
    return new RequestScan(
        RequestScan.Shape.BATCH,
        toolsCall ? JsonRpc.TOOLS_CALL : first,
        null,
        toolsCall,
        null,
        false);
  }

  static JsonNode idNode(JsonParser p, JsonToken t) throws IOException {
    return switch (t) {
      case VALUE_STRING -> JsonNodeFactory.instance.textNode(p.getText());
      case VALUE_NUMBER_INT -> JsonNodeFactory.instance.numberNode(p.getBigIntegerValue());
      case VALUE_NULL -> JsonNodeFactory.instance.nullNode();
      default -> {
        p.skipChildren();
        yield null;
      }
    };
  }

  private static long offset(IOException e) {
    if (e instanceof com.fasterxml.jackson.core.JsonProcessingException jpe
        && jpe.getLocation() != null) {
      return jpe.getLocation().getByteOffset();
    }
    return -1;
  }
}
