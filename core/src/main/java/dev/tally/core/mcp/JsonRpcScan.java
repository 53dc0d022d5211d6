package dev.tally.core.mcp;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import java.io.IOException;

/**
 * What a JSON-RPC message body is, found by one streaming pass without building a tree: its kind
 * and, for a request or notification, its {@code method}. Adapters use it to route everything that
 * is not a {@code tools/call} untouched.
 *
 * <p>Implementation note: the whole body is scanned, not only up to {@code method}, because a
 * second top-level {@code method} member would let a body that looks like {@code tools/list} here
 * run as {@code tools/call} in a server whose parser keeps the last duplicate. Such a body is
 * {@link Kind#MALFORMED}; so is one with a duplicate {@code params} or {@code params.name}, since
 * {@code params.name} decides whether a call is read-only.
 *
 * @param kind what the body is
 * @param method the top-level {@code method} string, or {@code null}
 * @param name {@code params.name} when it is a string (the tool of a {@code tools/call}), or {@code
 *     null}
 * @param problem why the body is {@link Kind#MALFORMED} or {@link Kind#INVALID} (names a position
 *     or member, never a value), or {@code null}
 */
public record JsonRpcScan(Kind kind, String method, String name, String problem) {

  /** The kinds of body. */
  public enum Kind {
    /** An object with a string {@code method}: a request or a notification. */
    REQUEST,
    /** An object without {@code method}: a response (or something the server must judge). */
    RESPONSE,
    /** A top-level array (JSON-RPC batch, 2025-03-26 only). */
    BATCH,
    /** Well-formed JSON that is not a JSON-RPC message ({@code method} not a string, a scalar). */
    INVALID,
    /** Not JSON, truncated, trailing data, or a duplicate top-level {@code method}. */
    MALFORMED
  }

  /** The method of a tool call. */
  public static final String TOOLS_CALL = "tools/call";

  /** The method whose responses carry tool annotations. */
  public static final String TOOLS_LIST = "tools/list";

  private static final JsonFactory FACTORY =
      JsonFactory.builder()
          .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(256).build())
          .build();

  /** Whether this is a request or notification for {@code tools/call}. */
  public boolean isToolsCall() {
    return kind == Kind.REQUEST && TOOLS_CALL.equals(method);
  }

  /** Scans {@code len} bytes of UTF-8 JSON at {@code off}. Never throws for bad input. */
  public static JsonRpcScan scan(byte[] body, int off, int len) {
    try (JsonParser p = FACTORY.createParser(body, off, len)) {
      JsonToken first = p.nextToken();
      if (first == null) {
        return malformed("empty body");
      }
      if (first == JsonToken.START_ARRAY) {
        p.skipChildren();
        return trailing(p, new JsonRpcScan(Kind.BATCH, null, null, null));
      }
      if (first != JsonToken.START_OBJECT) {
        p.skipChildren();
        return trailing(
            p, new JsonRpcScan(Kind.INVALID, null, null, "the body is not a JSON object"));
      }
      String method = null;
      String toolName = null;
      boolean methodSeen = false;
      boolean paramsSeen = false;
      boolean methodNotString = false;
      JsonToken t;
      while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken v = p.nextToken();
        if ("method".equals(name)) {
          if (methodSeen) {
            return malformed("duplicate top-level member \"method\"");
          }
          methodSeen = true;
          if (v == JsonToken.VALUE_STRING) {
            method = p.getText();
          } else {
            methodNotString = true;
          }
        } else if ("params".equals(name)) {
          if (paramsSeen) {
            return malformed("duplicate top-level member \"params\"");
          }
          paramsSeen = true;
          if (v == JsonToken.START_OBJECT) {
            Object n = paramsName(p);
            if (n == DUPLICATE) {
              return malformed("duplicate member \"params.name\"");
            }
            toolName = (String) n;
            continue;
          }
        }
        p.skipChildren();
      }
      if (t != JsonToken.END_OBJECT) {
        return malformed("unexpected token at offset " + p.currentLocation().getByteOffset());
      }
      JsonRpcScan result;
      if (methodNotString) {
        result = new JsonRpcScan(Kind.INVALID, null, null, "method: expected a string");
      } else if (method == null) {
        result = new JsonRpcScan(Kind.RESPONSE, null, null, null);
      } else {
        result = new JsonRpcScan(Kind.REQUEST, method, toolName, null);
      }
      return trailing(p, result);
    } catch (IOException e) {
      return malformed("not valid JSON");
    }
  }

  /** Scans a whole array. */
  public static JsonRpcScan scan(byte[] body) {
    return scan(body, 0, body.length);
  }

  private static JsonRpcScan trailing(JsonParser p, JsonRpcScan ok) throws IOException {
    if (p.nextToken() != null) {
      return malformed("data after the JSON value");
    }
    return ok;
  }

  private static JsonRpcScan malformed(String why) {
    return new JsonRpcScan(Kind.MALFORMED, null, null, why);
  }

  private static final Object DUPLICATE = new Object();

  /**
   * Reads the members of {@code params} (the parser is on its START_OBJECT) up to its END_OBJECT:
   * the string {@code name}, {@code null}, or {@link #DUPLICATE}.
   */
  private static Object paramsName(JsonParser p) throws IOException {
    String name = null;
    boolean seen = false;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String field = p.currentName();
      JsonToken v = p.nextToken();
      if ("name".equals(field)) {
        if (seen) {
          return DUPLICATE;
        }
        seen = true;
        name = v == JsonToken.VALUE_STRING ? p.getText() : null;
      }
      p.skipChildren();
    }
    return name;
  }
}
