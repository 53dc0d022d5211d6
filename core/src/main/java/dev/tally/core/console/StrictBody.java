package dev.tally.core.console;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tally.core.canonical.CanonicalLimits;
import dev.tally.core.canonical.CanonicalizationException;
import dev.tally.core.canonical.Jcs;
import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * Reads the JSON body of a state-changing admin request strictly, with the core's RFC 8785 parser
 * ({@link Jcs#parse}): a duplicate member name anywhere (which two parsers could resolve
 * differently) is refused naming the member, as are lone surrogates, non-finite numbers, nesting
 * deeper than {@value #MAX_DEPTH} levels and anything that is not one JSON object; then only the
 * expected members are accepted. Problems are values and never quote a string of the body.
 */
public final class StrictBody {
  /** Deepest nesting accepted. */
  public static final int MAX_DEPTH = CanonicalLimits.DEFAULT_MAX_DEPTH;

  /** Largest admin request body accepted, in bytes (both adapters' admin limit). */
  public static final int MAX_BODY = 4 * 1024 * 1024;

  private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
      new com.fasterxml.jackson.databind.ObjectMapper();
  private static final Jcs STRICT = Jcs.create(new CanonicalLimits(MAX_DEPTH, MAX_BODY));

  /** The body as an object, or what is wrong with it (then {@code object} is {@code null}). */
  public record Parsed(ObjectNode object, String problem) {
    static Parsed ok(ObjectNode o) {
      return new Parsed(o, null);
    }

    static Parsed refused(String problem) {
      return new Parsed(null, problem);
    }
  }

  private StrictBody() {}

  /**
   * The body as a JSON object with no members but {@code allowed}; an empty body counts as {@code
   * {}} when {@code emptyIsObject}.
   */
  public static Parsed object(byte[] body, boolean emptyIsObject, List<String> allowed) {
    if (body == null || body.length == 0) {
      return emptyIsObject
          ? Parsed.ok(JsonNodeFactory.instance.objectNode())
          : Parsed.refused("empty body (expected: a JSON object)");
    }
    JsonNode n;
    try {
      n = STRICT.parse(body);
    } catch (CanonicalizationException e) {
      return Parsed.refused(describe(e));
    }
    if (!n.isObject()) {
      return Parsed.refused("the body is " + kind(n) + " (expected: a JSON object)");
    }
    for (Map.Entry<String, JsonNode> m : n.properties()) {
      if (!allowed.contains(m.getKey())) {
        return Parsed.refused(
            AdminReply.quote(m.getKey())
                + ": unknown member (expected "
                + (allowed.isEmpty() ? "none" : "only " + String.join(", ", allowed))
                + ")");
      }
    }
    return Parsed.ok((ObjectNode) n);
  }

  /** The bytes of {@code value} as JSON. */
  public static byte[] bytes(JsonNode value) {
    try {
      return JSON.writeValueAsBytes(value);
    } catch (IOException e) {
      throw new IllegalStateException("a parsed JSON tree is always serializable", e);
    }
  }

  /** {@code bytes} read as a JSON tree (a stored result; not strict). */
  public static JsonNode tree(byte[] bytes) throws IOException {
    return JSON.readTree(bytes);
  }

  /** What kind of JSON value {@code v} is, in words ({@code "an object"}, {@code "missing"}). */
  public static String kind(JsonNode v) {
    if (v == null || v.isMissingNode()) {
      return "missing";
    }
    return switch (v.getNodeType()) {
      case OBJECT -> "an object";
      case ARRAY -> "an array";
      case STRING -> "a string";
      case NUMBER -> "a number";
      case BOOLEAN -> "a boolean";
      case NULL -> "null";
      default -> "a " + v.getNodeType().name().toLowerCase(java.util.Locale.ROOT);
    };
  }

  private static String describe(CanonicalizationException e) {
    if (e.code() == CanonicalizationException.Code.DUPLICATE_KEY) {
      String p = e.pointer();
      String member = unescape(p.substring(p.lastIndexOf('/') + 1));
      String parent = p.substring(0, p.lastIndexOf('/'));
      return "duplicate member "
          + AdminReply.quote(member)
          + (parent.isEmpty() ? "" : " in " + AdminReply.quote(parent))
          + " (expected: each member once)";
    }
    if (e.code() == CanonicalizationException.Code.TOO_LARGE) {
      return "body over " + MAX_BODY + " bytes";
    }
    String m = e.getMessage();
    return "malformed JSON: " + (m.length() > 160 ? m.substring(0, 160) + "…" : m);
  }

  private static String unescape(String token) {
    return token.replace("~1", "/").replace("~0", "~");
  }
}
