package dev.tally.sidecar.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tally.core.gate.Confirmations;
import dev.tally.core.gate.WriteSwitch;
import io.vertx.core.Future;
import io.vertx.ext.web.RoutingContext;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The operator's write switch, live (issue 18; admin token): {@code GET /v1/writes}, {@code POST
 * /v1/writes} with {@code {"enabled": true|false}} (global) or {@code {"actor": "…", "enabled":
 * true|false|null}} (one actor; {@code null} clears its own position), and {@code POST
 * /v1/actors/{actor}/revoke|restore}: a revoked actor may not write and its pending calls are
 * cancelled. Every change takes effect on the next call.
 */
final class WriteRoutes {
  private final WriteSwitch writeSwitch;
  private final Confirmations confirmations;

  WriteRoutes(WriteSwitch writeSwitch, Confirmations confirmations) {
    this.writeSwitch = writeSwitch;
    this.confirmations = confirmations;
  }

  void show(RoutingContext ctx) {
    AdminReplies.json(ctx, 200, render(writeSwitch.state()));
  }

  void change(RoutingContext ctx) {
    String refused = JsonOnly.problem(ctx.request().getHeader("Content-Type"));
    if (refused != null) {
      AdminReplies.error(ctx, 415, "UNSUPPORTED_MEDIA_TYPE", refused);
      return;
    }
    StrictBody.Parsed body =
        StrictBody.object(ctx.body().buffer(), false, List.of("enabled", "actor"));
    if (body.problem() != null) {
      AdminReplies.error(ctx, 400, "INVALID_BODY", body.problem());
      return;
    }
    JsonNode enabled = body.object().get("enabled");
    JsonNode actor = body.object().get("actor");
    if (actor != null && !actor.isTextual()) {
      AdminReplies.error(ctx, 400, "INVALID_BODY", "actor: expected an actor id (a string)");
      return;
    }
    if (actor == null) {
      if (enabled == null || !enabled.isBoolean()) {
        AdminReplies.error(ctx, 400, "INVALID_BODY", "enabled: expected true or false");
        return;
      }
      AdminReplies.json(ctx, 200, render(writeSwitch.setGlobal(enabled.booleanValue())));
      return;
    }
    if (enabled == null || !(enabled.isBoolean() || enabled.isNull())) {
      AdminReplies.error(
          ctx, 400, "INVALID_BODY", "enabled: expected true, false or null (use the global one)");
      return;
    }
    AdminReplies.json(
        ctx,
        200,
        render(
            writeSwitch.setActor(
                actor.textValue(), enabled.isNull() ? null : enabled.booleanValue())));
  }

  void actor(RoutingContext ctx) {
    String actor = ctx.pathParam("actor");
    String action = ctx.pathParam("action");
    if (action.equals("restore")) {
      AdminReplies.json(ctx, 200, render(writeSwitch.restore(actor)));
      return;
    }
    if (!action.equals("revoke")) {
      AdminReplies.error(ctx, 404, "NOT_FOUND", "no such action: " + AdminReplies.quote(action));
      return;
    }
    WriteSwitch.State s = writeSwitch.revoke(actor);
    Future.fromCompletionStage(confirmations.cancelAllOf(actor), ctx.vertx().getOrCreateContext())
        .onSuccess(
            n -> {
              ObjectNode out = render(s);
              out.put("cancelled", n);
              AdminReplies.json(ctx, 200, out);
            })
        .onFailure(
            e ->
                AdminReplies.error(
                    ctx,
                    503,
                    "STORE_UNAVAILABLE",
                    "revoked, but its pending calls could not all be cancelled now; retry"));
  }

  static ObjectNode render(WriteSwitch.State s) {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    o.put("enabled", s.global());
    ObjectNode a = o.putObject("actors");
    new TreeMap<String, Boolean>(Map.copyOf(s.actors())).forEach(a::put);
    var r = o.putArray("revoked");
    new TreeSet<>(s.revoked()).forEach(r::add);
    return o;
  }
}
