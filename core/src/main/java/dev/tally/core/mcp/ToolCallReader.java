package dev.tally.core.mcp;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tally.core.canonical.CanonicalizationException;
import dev.tally.core.canonical.Jcs;
import java.io.IOException;
import java.util.Objects;

/**
 * The one reader of a {@code tools/call} request envelope for both adapters: checks it, reads the
 * arguments and {@code _meta} strictly (duplicate members anywhere refused, numbers exact) and
 * remembers where {@code _meta} sits so that the execution id can be spliced into the client's
 * bytes. Thread-safe.
 *
 * <p>Run it on a body {@link BodyClassifier} accepted as a {@code tools/call} message: encoding,
 * depth, {@code jsonrpc} and the top-level members were decided there. What it refuses, naming the
 * member (never a value): a missing or null {@code id} ({@code INVALID_REQUEST}: a {@code
 * tools/call} must be a request); {@code params} not an object, {@code params.name} not a non-empty
 * string, {@code params._meta} not an object or null ({@code INVALID_REQUEST}); {@code
 * params.arguments} not an object or null, or a duplicate member inside it ({@code
 * INVALID_ARGUMENTS}, JSON-RPC -32602); a duplicate member elsewhere ({@code INVALID_REQUEST}).
 */
public final class ToolCallReader {
  private static final String PREFIX = "tools/call: ";
  private final WireJson json;

  private ToolCallReader(WireJson json) {
    this.json = json;
  }

  public static ToolCallReader create(WireJson json) {
    return new ToolCallReader(Objects.requireNonNull(json, "json"));
  }

  /** What reading gave: an envelope, or the refusal (with the id when it could be read). */
  public sealed interface Read {}

  /** A valid call. */
  public record Ok(ToolCallEnvelope envelope) implements Read {}

  /** Not a valid call. */
  public record Refused(JsonNode id, TallyError error) implements Read {}

  /** Reads {@code len} bytes of {@code b} from {@code off}. Never throws on bad input. */
  public Read read(byte[] b, int off, int len) {
    Parts parts = new Parts();
    try (JsonParser p = json.strictParser(b, off, len)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return refuse(null, TallyError.Code.INVALID_REQUEST, "not a JSON-RPC object");
      }
      parts.read(p, json.strict());
      if (p.nextToken() != null) {
        return refuse(null, TallyError.Code.PARSE_ERROR, "trailing content after the JSON value");
      }
    } catch (StreamConstraintsException e) {
      return refuse(null, TallyError.Code.INVALID_REQUEST, json.describe(e));
    } catch (JsonParseException e) {
      if (e.getMessage() != null && e.getMessage().startsWith("Duplicate field")) {
        String at = e.getProcessor() == null ? "" : pointer(e.getProcessor());
        boolean inArguments = at.startsWith("/params/arguments");
        return refuse(
            parts.id,
            inArguments ? TallyError.Code.INVALID_ARGUMENTS : TallyError.Code.INVALID_REQUEST,
            "duplicate member at " + (at.isEmpty() ? "/" : at));
      }
      return refuse(null, TallyError.Code.PARSE_ERROR, "malformed JSON");
    } catch (IOException e) {
      return refuse(null, TallyError.Code.PARSE_ERROR, "malformed JSON");
    } catch (NumberFormatException e) {
      // Jackson's way to refuse a number it cannot hold exactly (an exponent of 28 digits); its
      // message quotes the number, so it is not passed on.
      boolean inArguments = parts.section.startsWith("/params/arguments");
      return refuse(
          parts.id,
          inArguments ? TallyError.Code.INVALID_ARGUMENTS : TallyError.Code.INVALID_REQUEST,
          "number out of range in " + (parts.section.isEmpty() ? "/" : parts.section));
    }
    return parts.check(b, off, len);
  }

  private static String pointer(Object processor) {
    if (processor instanceof JsonParser p && p.getParsingContext() != null) {
      return p.getParsingContext().pathAsPointer().toString();
    }
    return "";
  }

  static Refused refuse(JsonNode id, TallyError.Code code, String what) {
    return new Refused(id, TallyError.of(code, PREFIX + what));
  }

  /** The members read in one pass, with the offsets of {@code params} and {@code _meta}. */
  private static final class Parts {
    JsonNode id;
    boolean idSeen;

    /** The member being read as a tree ({@code /params/arguments}, ...), for a refusal's text. */
    String section = "";

    JsonToken paramsToken;
    JsonNode name;
    JsonToken argumentsToken;
    ObjectNode arguments;
    JsonToken metaToken;
    ObjectNode meta;
    boolean inputResponses;
    ObjectNode inputResponsesTree;
    JsonToken requestStateToken;
    String requestState;

    /** Where the {@code inputResponses} and {@code requestState} members start and end, or -1. */
    int[] inputMembers = {-1, -1, -1, -1};

    int paramsOpen = -1;
    boolean paramsEmpty = true;
    int metaStart = -1;
    int metaEnd = -1;
    int idStart = -1;
    int idEnd = -1;
    int traceparentStart = -1;
    int traceparentEnd = -1;
    int tracestateStart = -1;
    int tracestateEnd = -1;

    void read(JsonParser p, ObjectMapper mapper) throws IOException {
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String member = p.currentName();
        JsonToken v = p.nextToken();
        if ("id".equals(member)) {
          idSeen = true;
          JsonNode n = BodyClassifier.idNode(p, v);
          id = n == null || n.isNull() ? null : n;
        } else if ("params".equals(member)) {
          paramsToken = v;
          if (v == JsonToken.START_OBJECT) {
            paramsOpen = (int) p.currentTokenLocation().getByteOffset() + 1;
            params(p, mapper);
          } else {
            p.skipChildren();
          }
        } else {
          p.skipChildren();
        }
      }
    }

    private void params(JsonParser p, ObjectMapper mapper) throws IOException {
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        paramsEmpty = false;
        int memberStart = (int) p.currentTokenLocation().getByteOffset();
        String member = p.currentName();
        JsonToken v = p.nextToken();
        switch (member) {
          case "name" -> {
            section = "/params/name";
            name = mapper.readTree(p);
          }
          case "arguments" -> {
            argumentsToken = v;
            section = "/params/arguments";
            JsonNode a = mapper.readTree(p);
            arguments = a instanceof ObjectNode o ? o : null;
          }
          case "_meta" -> {
            metaToken = v;
            section = "/params/_meta";
            metaStart = (int) p.currentTokenLocation().getByteOffset();
            if (v == JsonToken.START_OBJECT) {
              meta = meta(p, mapper);
            } else {
              mapper.readTree(p);
            }
            metaEnd = (int) p.currentLocation().getByteOffset();
          }
          case "inputResponses" -> {
            inputResponses = v != JsonToken.VALUE_NULL;
            inputMembers[0] = memberStart;
            section = "/params/inputResponses";
            JsonNode t = mapper.readTree(p);
            inputResponsesTree = t instanceof ObjectNode o ? o : null;
            inputMembers[1] = (int) p.currentLocation().getByteOffset();
          }
          case "requestState" -> {
            requestStateToken = v;
            inputMembers[2] = memberStart;
            section = "/params/requestState";
            JsonNode t = mapper.readTree(p);
            requestState = t != null && t.isTextual() ? t.textValue() : null;
            inputMembers[3] = (int) p.currentLocation().getByteOffset();
          }
          default -> p.skipChildren();
        }
      }
    }

    private ObjectNode meta(JsonParser p, ObjectMapper mapper) throws IOException {
      ObjectNode m = mapper.createObjectNode();
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String member = p.currentName();
        p.nextToken();
        int start = (int) p.currentTokenLocation().getByteOffset();
        m.set(member, mapper.readTree(p));
        int end = (int) p.currentLocation().getByteOffset();
        // The values Tally may replace when it forwards the call (ToolCallEnvelope#forUpstream).
        switch (member) {
          case McpNames.MetaKeys.EXECUTION_ID -> {
            idStart = start;
            idEnd = end;
          }
          case McpNames.MetaKeys.TRACEPARENT -> {
            traceparentStart = start;
            traceparentEnd = end;
          }
          case McpNames.MetaKeys.TRACESTATE -> {
            tracestateStart = start;
            tracestateEnd = end;
          }
          default -> {}
        }
      }
      return m;
    }

    Read check(byte[] b, int off, int len) {
      if (!idSeen || id == null) {
        return refuse(
            null,
            TallyError.Code.INVALID_REQUEST,
            "id: missing or null (a tools/call must be a request, not a notification)");
      }
      if (paramsToken != JsonToken.START_OBJECT) {
        return refuse(id, TallyError.Code.INVALID_REQUEST, "params: expected an object");
      }
      if (name == null || !name.isTextual() || name.textValue().isEmpty()) {
        return refuse(
            id, TallyError.Code.INVALID_REQUEST, "params.name: expected a non-empty string");
      }
      if (argumentsToken != null
          && argumentsToken != JsonToken.VALUE_NULL
          && argumentsToken != JsonToken.START_OBJECT) {
        return refuse(
            id, TallyError.Code.INVALID_ARGUMENTS, "params.arguments: expected an object");
      }
      if (metaToken != null
          && metaToken != JsonToken.VALUE_NULL
          && metaToken != JsonToken.START_OBJECT) {
        return refuse(id, TallyError.Code.INVALID_REQUEST, "params._meta: expected an object");
      }
      if (meta != null) {
        try {
          Jcs.validate(meta, Integer.MAX_VALUE);
        } catch (CanonicalizationException e) {
          // The rules arguments are held to: finite numbers in range, valid strings.
          return refuse(
              id,
              TallyError.Code.INVALID_REQUEST,
              "params._meta" + e.pointer() + ": " + e.getMessage());
        }
      }
      if (requestStateToken != null
          && requestStateToken != JsonToken.VALUE_NULL
          && requestStateToken != JsonToken.VALUE_STRING) {
        return refuse(
            id, TallyError.Code.INVALID_REQUEST, "params.requestState: expected a string");
      }
      JsonNode version = meta == null ? null : meta.get(McpNames.MetaKeys.PROTOCOL_VERSION);
      ToolCallEnvelope.Splice splice =
          new ToolCallEnvelope.Splice(
              paramsOpen,
              paramsEmpty,
              metaStart,
              metaEnd,
              meta != null,
              meta == null || meta.isEmpty(),
              idStart,
              idEnd,
              traceparentStart,
              traceparentEnd,
              tracestateStart,
              tracestateEnd);
      return new Ok(
          new ToolCallEnvelope(
              id,
              name.textValue(),
              arguments,
              meta,
              new ToolCallEnvelope.Input(
                  inputResponses, inputResponsesTree, requestState, inputMembers.clone()),
              version != null && version.isTextual() ? version.textValue() : null,
              b,
              off,
              len,
              splice));
    }
  }
}
