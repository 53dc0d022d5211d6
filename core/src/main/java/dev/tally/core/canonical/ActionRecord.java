package dev.tally.core.canonical;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Objects;

/**
 * The canonical action record of ARCHITECTURE.md §3: what the fingerprint is computed over. {@code
 * arguments} must already be normalized ({@link ArgumentNormalizer}).
 */
public record ActionRecord(
    String actor,
    String tool,
    String channel,
    String target,
    String credentialRef,
    JsonNode arguments,
    String intentScope) {

  public static final String CHANNEL_MCP = "mcp";

  public ActionRecord {
    Objects.requireNonNull(actor, "actor");
    Objects.requireNonNull(tool, "tool");
    Objects.requireNonNull(channel, "channel");
    Objects.requireNonNull(target, "target");
    credentialRef = credentialRef == null ? "" : credentialRef;
    arguments = arguments == null ? JsonNodeFactory.instance.objectNode() : arguments;
    Objects.requireNonNull(intentScope, "intentScope");
  }

  /** The record as a JSON object (field names as in §3). */
  public ObjectNode toJson() {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    o.put("actor", actor);
    o.put("tool", tool);
    o.put("channel", channel);
    o.put("target", target);
    o.put("credential_ref", credentialRef);
    o.set("arguments", arguments);
    o.put("intent_scope", intentScope);
    return o;
  }

  /**
   * The canonical bytes of {@link #toJson()} that the fingerprint is computed over: RFC 8785 with
   * exact numbers ({@link Jcs#canonicalizeExact(JsonNode)}), so that arguments differing in any
   * digit of a number never share a fingerprint.
   */
  public byte[] canonicalBytes(Jcs jcs) {
    return jcs.canonicalizeExact(toJson());
  }

  @Override
  public String toString() {
    // Arguments may hold values a log must not see.
    return "ActionRecord[tool=" + tool + ", actor=" + actor + "]";
  }
}
