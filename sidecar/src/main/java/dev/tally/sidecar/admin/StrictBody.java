package dev.tally.sidecar.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tally.core.canonical.CanonicalLimits;
import dev.tally.core.canonical.CanonicalizationException;
import dev.tally.core.canonical.Jcs;
import io.vertx.core.buffer.Buffer;
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
final class StrictBody {
  static final int MAX_DEPTH = CanonicalLimits.DEFAULT_MAX_DEPTH;
  private static final Jcs STRICT =
      Jcs.create(new CanonicalLimits(MAX_DEPTH, AdminServer.MAX_BODY));

  /** The body as an object, or what is wrong with it (then {@code object} is {@code null}). */
  record Parsed(ObjectNode object, String problem) {
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
  static Parsed object(Buffer body, boolean emptyIsObject, List<String> allowed) {
    if (body == null || body.length() == 0) {
      return emptyIsObject
          ? Parsed.ok(JsonNodeFactory.instance.objectNode())
          : Parsed.refused("empty body (expected: a JSON object)");
    }
    JsonNode n;
    try {
      n = STRICT.parse(body.getBytes());
    } catch (CanonicalizationException e) {
      return Parsed.refused(describe(e));
    }
    if (!n.isObject()) {
      return Parsed.refused(
          "the body is " + ToolResultShape.kind(n) + " (expected: a JSON object)");
    }
    for (Map.Entry<String, JsonNode> m : n.properties()) {
      if (!allowed.contains(m.getKey())) {
        return Parsed.refused(
            AdminReplies.quote(m.getKey())
                + ": unknown member (expected "
                + (allowed.isEmpty() ? "none" : "only " + String.join(", ", allowed))
                + ")");
      }
    }
    return Parsed.ok((ObjectNode) n);
  }

  /** The bytes of {@code value} as JSON. */
  static byte[] bytes(JsonNode value) {
    try {
      return AdminReplies.JSON.writeValueAsBytes(value);
    } catch (IOException e) {
      throw new IllegalStateException("a parsed JSON tree is always serializable", e);
    }
  }

  private static String describe(CanonicalizationException e) {
    if (e.code() == CanonicalizationException.Code.DUPLICATE_KEY) {
      String p = e.pointer();
      String member = unescape(p.substring(p.lastIndexOf('/') + 1));
      String parent = p.substring(0, p.lastIndexOf('/'));
      return "duplicate member "
          + AdminReplies.quote(member)
          + (parent.isEmpty() ? "" : " in " + AdminReplies.quote(parent))
          + " (expected: each member once)";
    }
    if (e.code() == CanonicalizationException.Code.TOO_LARGE) {
      return "body over " + AdminServer.MAX_BODY + " bytes";
    }
    String m = e.getMessage();
    return "malformed JSON: " + (m.length() > 160 ? m.substring(0, 160) + "…" : m);
  }

  private static String unescape(String token) {
    return token.replace("~1", "/").replace("~0", "~");
  }
}
