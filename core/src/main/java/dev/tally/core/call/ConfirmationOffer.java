package dev.tally.core.call;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tally.core.execution.Execution;
import dev.tally.core.gate.RequestStates;
import dev.tally.core.mcp.McpNames;
import dev.tally.core.mcp.ProtocolVersions;
import dev.tally.core.mcp.ToolCallEnvelope;

/**
 * How a pending confirmation is put to the client (issue 18): the tool result every client can
 * show, or, in the 2026-07-28 era for a client that declared URL-mode elicitation ({@code
 * _meta["io.modelcontextprotocol/clientCapabilities"].elicitation.url}), an MRTR input-required
 * result whose URL-mode elicitation carries the same {@code confirmUrl}.
 *
 * <p>A follow-up whose {@code inputResponses} answer Tally's elicitation with {@code decline} or
 * {@code cancel} gets the tool result: the pending call stays pending (only its actor, at the
 * console, confirms or cancels it: the client's answer may be an agent's, not the person's), and
 * the client is not asked again in a loop.
 */
enum ConfirmationOffer {
  /** The pending tool result ({@code status: "pending_confirmation"}). */
  TOOL_RESULT,
  /** An input-required result with a URL-mode elicitation and a {@code requestState}. */
  URL_ELICITATION;

  /**
   * The form for {@code call} waiting on {@code pending}; {@code followUp} is the verified state
   * and answers it echoed, or null.
   */
  static ConfirmationOffer of(ToolCallEnvelope call, Execution pending, FollowUp followUp) {
    if (!ProtocolVersions.isModern(call.metaVersion()) || !declaresUrlElicitation(call.meta())) {
      return TOOL_RESULT;
    }
    if (followUp != null && followUp.responses() != null) {
      String action = followUp.responses().path(pending.id().value()).path("action").asText("");
      if (action.equals("decline") || action.equals("cancel")) {
        return TOOL_RESULT;
      }
    }
    return URL_ELICITATION;
  }

  /** Whether {@code meta} declares URL-mode elicitation (an object under {@code url}). */
  static boolean declaresUrlElicitation(ObjectNode meta) {
    if (meta == null) {
      return false;
    }
    JsonNode url = meta.path(McpNames.MetaKeys.CLIENT_CAPABILITIES).path("elicitation").path("url");
    return url.isObject();
  }

  /**
   * A call that echoed a {@code requestState} of Tally's that verified: what it says, and the
   * {@code inputResponses} the client sent with it (null when none). The call itself goes on
   * without both members: it is never an MRTR continuation for the upstream.
   */
  record FollowUp(RequestStates.Claims claims, ObjectNode responses) {}
}
