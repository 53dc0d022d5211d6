package dev.tally.core.mcp;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.tally.core.canonical.Utf8Scan;
import java.io.IOException;
import java.util.Objects;

/**
 * The one classification of a POST body for both adapters: a single JSON-RPC message, a batch, or
 * refused, with the rules decided once (docs/tool-results.md, "Refusals"). One streaming pass, no
 * tree. Thread-safe.
 *
 * <p>Rules, in order: the body is strict UTF-8 (RFC 3629: no overlong forms, surrogates, code
 * points above U+10FFFF or NUL) without a byte order mark (RFC 8259 §8.1), else {@code
 * PARSE_ERROR}; it is one JSON value with nothing after it but JSON whitespace, nested at most
 * {@link WireJson#maxDepth()} levels ({@code PARSE_ERROR}, or {@code INVALID_REQUEST} for the
 * depth); a top-level array is a batch ({@link BatchSplitter} reads its elements with these same
 * rules), an object a message, anything else {@code INVALID_REQUEST}. A message has {@code
 * "jsonrpc": "2.0"}, a string {@code method} or a {@code result}/{@code error}, an {@code id} that
 * is a string or an integer (null only in a response), and no duplicate {@code jsonrpc}, {@code
 * id}, {@code method}, {@code params}, {@code params.name}, {@code params.uri}, {@code
 * params.arguments}, {@code params._meta} or {@code _meta} protocol version: a server that keeps
 * the last of two members could act on a value the gate never saw. Messages name the member or the
 * byte offset, never a value.
 */
public final class BodyClassifier {
  private static final String PREFIX = "request body: ";
  private final WireJson json;

  private BodyClassifier(WireJson json) {
    this.json = json;
  }

  public static BodyClassifier create(WireJson json) {
    return new BodyClassifier(Objects.requireNonNull(json, "json"));
  }

  public WireJson json() {
    return json;
  }

  /** Classifies {@code len} bytes of {@code b} from {@code off}. Never throws on bad input. */
  public BodyScan classify(byte[] b, int off, int len) {
    return classify(b, off, len, "request body: ");
  }

  /** As {@link #classify(byte[], int, int)}, with refusals worded for {@code subject}. */
  BodyScan classify(byte[] b, int off, int len, String subject) {
    BodyScan s = scan(b, off, len);
    if (s.problem() == null || subject.equals(PREFIX)) {
      return s;
    }
    String m = s.problem().message().substring(PREFIX.length());
    return BodyScan.refused(s.id(), TallyError.of(s.problem().code(), subject + m));
  }

  private BodyScan scan(byte[] b, int off, int len) {
    if (Utf8Scan.startsWithBom(b, off, len)) {
      return parseError(
          "starts with a UTF-8 byte order mark (RFC 8259 §8.1: JSON sent over a network has"
              + " none)");
    }
    int bad = Utf8Scan.scan(b, off, len);
    if (bad >= 0) {
      return parseError("invalid UTF-8 at byte " + (bad - off) + " (RFC 3629)");
    }
    try (JsonParser p = json.scan(b, off, len)) {
      JsonToken first = p.nextToken();
      if (first == null) {
        return parseError("empty (expected: one JSON-RPC message)");
      }
      if (first == JsonToken.START_ARRAY) {
        p.skipChildren();
        return trailing(p, BodyScan.batch());
      }
      if (first != JsonToken.START_OBJECT) {
        p.skipChildren();
        return trailing(p, invalid(null, "not a JSON-RPC object or batch"));
      }
      return trailing(p, new Message().read(p));
    } catch (StreamConstraintsException e) {
      return invalid(null, json.describe(e));
    } catch (IOException e) {
      return parseError("malformed JSON near byte " + offset(e));
    }
  }

  /** Classifies a whole array. */
  public BodyScan classify(byte[] b) {
    return classify(b, 0, b.length);
  }

  private static BodyScan trailing(JsonParser p, BodyScan ok) throws IOException {
    if (p.nextToken() != null) {
      return parseError("trailing content after the JSON value");
    }
    return ok;
  }

  private static long offset(IOException e) {
    return e instanceof JsonProcessingException jpe && jpe.getLocation() != null
        ? jpe.getLocation().getByteOffset()
        : -1;
  }

  static BodyScan parseError(String what) {
    return BodyScan.refused(null, TallyError.of(TallyError.Code.PARSE_ERROR, PREFIX + what));
  }

  static BodyScan invalid(JsonNode id, String what) {
    return BodyScan.refused(id, TallyError.of(TallyError.Code.INVALID_REQUEST, PREFIX + what));
  }

  /** The members of one top-level object, read in one pass. */
  private static final class Message {
    private String jsonrpc;
    private boolean jsonrpcSeen;
    private String method;
    private boolean methodSeen;
    private boolean methodNotString;
    private JsonNode id;
    private boolean idSeen;
    private boolean idBad;
    private boolean paramsSeen;
    private boolean paramsObject;
    private boolean resultOrError;
    private String name;
    private String uri;
    private int nameSeen;
    private int uriSeen;
    private boolean nameString = true;
    private JsonToken argumentsToken;
    private JsonToken metaToken;
    private String metaVersion;
    private String duplicate;

    BodyScan read(JsonParser p) throws IOException {
      JsonToken t;
      while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
        String member = p.currentName();
        JsonToken v = p.nextToken();
        switch (member) {
          case "jsonrpc" -> {
            once(jsonrpcSeen, "jsonrpc");
            jsonrpcSeen = true;
            jsonrpc = v == JsonToken.VALUE_STRING ? p.getText() : null;
            p.skipChildren();
          }
          case "method" -> {
            once(methodSeen, "method");
            methodSeen = true;
            if (v == JsonToken.VALUE_STRING) {
              method = p.getText();
            } else {
              methodNotString = true;
              p.skipChildren();
            }
          }
          case "id" -> {
            once(idSeen, "id");
            idSeen = true;
            id = idNode(p, v);
            idBad = id == null;
          }
          case "params" -> {
            once(paramsSeen, "params");
            paramsSeen = true;
            if (v == JsonToken.START_OBJECT) {
              paramsObject = true;
              params(p);
            } else {
              p.skipChildren();
            }
          }
          case "result", "error" -> {
            resultOrError = true;
            p.skipChildren();
          }
          default -> p.skipChildren();
        }
      }
      if (t != JsonToken.END_OBJECT) {
        throw new JsonParseException(p, "unbalanced object");
      }
      return decide();
    }

    private void params(JsonParser p) throws IOException {
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String member = p.currentName();
        JsonToken v = p.nextToken();
        switch (member) {
          case "name" -> {
            once(nameSeen > 0, "params.name");
            nameSeen++;
            if (v == JsonToken.VALUE_STRING) {
              name = p.getText();
            } else {
              nameString = false;
              p.skipChildren();
            }
          }
          case "uri" -> {
            once(uriSeen > 0, "params.uri");
            uriSeen++;
            uri = v == JsonToken.VALUE_STRING ? p.getText() : null;
            p.skipChildren();
          }
          case "arguments" -> {
            once(argumentsToken != null, "params.arguments");
            argumentsToken = v;
            p.skipChildren();
          }
          case "_meta" -> {
            once(metaToken != null, "params._meta");
            metaToken = v;
            if (v == JsonToken.START_OBJECT) {
              meta(p);
            } else {
              p.skipChildren();
            }
          }
          default -> p.skipChildren();
        }
      }
    }

    private void meta(JsonParser p) throws IOException {
      boolean seen = false;
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String member = p.currentName();
        JsonToken v = p.nextToken();
        if (McpNames.MetaKeys.PROTOCOL_VERSION.equals(member)) {
          once(seen, "params._meta[\"" + McpNames.MetaKeys.PROTOCOL_VERSION + "\"]");
          seen = true;
          metaVersion = v == JsonToken.VALUE_STRING ? p.getText() : null;
        }
        p.skipChildren();
      }
    }

    /** Notes a second occurrence of {@code member}; the first duplicate found is reported. */
    private void once(boolean seenBefore, String member) {
      if (seenBefore && duplicate == null) {
        duplicate = member;
      }
    }

    private BodyScan decide() {
      JsonNode echo = idBad ? null : id;
      if (duplicate != null) {
        // The id is echoed unless it is the duplicate: then which one is meant is unknown.
        return invalid(
            "id".equals(duplicate) ? null : echo, "duplicate member \"" + duplicate + "\"");
      }
      if (idBad) {
        return invalid(null, "id must be a string or an integer");
      }
      if (!"2.0".equals(jsonrpc)) {
        return invalid(echo, "jsonrpc must be \"2.0\"");
      }
      if (methodNotString) {
        return invalid(echo, "method must be a string");
      }
      if (method == null) {
        if (!resultOrError) {
          return invalid(echo, "neither a method nor a result or error (not a JSON-RPC message)");
        }
        return new BodyScan(
            BodyScan.Shape.MESSAGE, BodyScan.Kind.RESPONSE, null, echo, null, null, false, null);
      }
      BodyScan.Kind kind;
      if (!idSeen) {
        kind = BodyScan.Kind.NOTIFICATION;
      } else if (id.isNull()) {
        return invalid(null, "id must not be null in an MCP request");
      } else {
        kind = BodyScan.Kind.REQUEST;
      }
      String named = McpNames.Methods.RESOURCES_READ.equals(method) ? uri : name;
      boolean call =
          kind == BodyScan.Kind.REQUEST
              && McpNames.Methods.TOOLS_CALL.equals(method)
              && paramsObject
              && nameString
              && name != null
              && !name.isEmpty()
              && objectOrNull(argumentsToken)
              && objectOrNull(metaToken);
      return new BodyScan(
          BodyScan.Shape.MESSAGE, kind, method, echo, named, metaVersion, call, null);
    }

    private static boolean objectOrNull(JsonToken t) {
      return t == null || t == JsonToken.START_OBJECT || t == JsonToken.VALUE_NULL;
    }
  }

  /** A string or integer id as a node; the null node for null; {@code null} for anything else. */
  static JsonNode idNode(JsonParser p, JsonToken t) throws IOException {
    return switch (t) {
      case VALUE_STRING -> JsonNodeFactory.instance.textNode(p.getText());
      case VALUE_NUMBER_INT ->
          switch (p.getNumberType()) {
            case INT -> JsonNodeFactory.instance.numberNode(p.getIntValue());
            case LONG -> JsonNodeFactory.instance.numberNode(p.getLongValue());
            default -> JsonNodeFactory.instance.numberNode(p.getBigIntegerValue());
          };
      case VALUE_NULL -> JsonNodeFactory.instance.nullNode();
      default -> {
        p.skipChildren();
        yield null;
      }
    };
  }
}
