package dev.tally.core.console;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tally.core.gate.Confirmations;
import dev.tally.core.gate.WriteSwitch;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The operator's write switch, live (issue 18; behind the admin token in both adapters): {@code GET
 * /v1/writes}, {@code POST /v1/writes} with {@code {"enabled": true|false}} (global) or {@code
 * {"actor": "…", "enabled": true|false|null}} (one actor; {@code null} clears its own position),
 * and {@code POST /v1/actors/{actor}/revoke|restore}: a revoked actor may not write and its pending
 * calls are cancelled. Every change takes effect on the next call. Transport-free: each method
 * answers an {@link AdminReply}.
 */
public final class WriteDesk {
  private final WriteSwitch writeSwitch;
  private final Confirmations confirmations;

  private WriteDesk(WriteSwitch writeSwitch, Confirmations confirmations) {
    this.writeSwitch = writeSwitch;
    this.confirmations = confirmations;
  }

  public static WriteDesk of(WriteSwitch writeSwitch, Confirmations confirmations) {
    return new WriteDesk(writeSwitch, confirmations);
  }

  /** {@code GET /v1/writes}. */
  public AdminReply show() {
    return AdminReply.json(200, render(writeSwitch.state()));
  }

  /** {@code POST /v1/writes} with a body of {@code contentType}. */
  public AdminReply change(String contentType, byte[] body) {
    String refused = JsonOnly.problem(contentType);
    if (refused != null) {
      return AdminReply.error(415, "UNSUPPORTED_MEDIA_TYPE", refused);
    }
    StrictBody.Parsed parsed = StrictBody.object(body, false, List.of("enabled", "actor"));
    if (parsed.problem() != null) {
      return AdminReply.error(400, "INVALID_BODY", parsed.problem());
    }
    JsonNode enabled = parsed.object().get("enabled");
    JsonNode actor = parsed.object().get("actor");
    if (actor != null && !actor.isTextual()) {
      return AdminReply.error(400, "INVALID_BODY", "actor: expected an actor id (a string)");
    }
    if (actor == null) {
      if (enabled == null || !enabled.isBoolean()) {
        return AdminReply.error(400, "INVALID_BODY", "enabled: expected true or false");
      }
      return AdminReply.json(200, render(writeSwitch.setGlobal(enabled.booleanValue())));
    }
    if (enabled == null || !(enabled.isBoolean() || enabled.isNull())) {
      return AdminReply.error(
          400, "INVALID_BODY", "enabled: expected true, false or null (use the global one)");
    }
    return AdminReply.json(
        200,
        render(
            writeSwitch.setActor(
                actor.textValue(), enabled.isNull() ? null : enabled.booleanValue())));
  }

  /** {@code POST /v1/actors/{actor}/{action}}: {@code revoke} or {@code restore}. */
  public CompletionStage<AdminReply> actor(String actor, String action) {
    if ("restore".equals(action)) {
      return CompletableFuture.completedFuture(
          AdminReply.json(200, render(writeSwitch.restore(actor))));
    }
    if (!"revoke".equals(action)) {
      return CompletableFuture.completedFuture(
          AdminReply.error(
              404,
              "NOT_FOUND",
              "no such action: " + AdminReply.quote(action == null ? "" : action)));
    }
    WriteSwitch.State s = writeSwitch.revoke(actor);
    return confirmations
        .cancelAllOf(actor)
        .thenApply(
            n -> {
              ObjectNode out = render(s);
              out.put("cancelled", n);
              return AdminReply.json(200, out);
            })
        .exceptionally(
            e ->
                AdminReply.error(
                    503,
                    "STORE_UNAVAILABLE",
                    "revoked, but its pending calls could not all be cancelled now; retry"));
  }

  /** The switch's position as the API shows it. */
  public static ObjectNode render(WriteSwitch.State s) {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    o.put("enabled", s.global());
    ObjectNode a = o.putObject("actors");
    new TreeMap<String, Boolean>(Map.copyOf(s.actors())).forEach(a::put);
    ArrayNode r = o.putArray("revoked");
    new TreeSet<>(s.revoked()).forEach(r::add);
    return o;
  }
}
