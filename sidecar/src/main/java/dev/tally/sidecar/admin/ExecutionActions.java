package dev.tally.sidecar.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tally.core.console.JsonOnly;
import dev.tally.core.console.StrictBody;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.gate.Operator;
import io.vertx.ext.web.RoutingContext;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * The execution resource, write side: {@code POST /v1/executions/{id}/resolve|confirm|cancel}. By
 * the time these handlers run, {@link AdminGuard} and {@link AdminAuth} let the request through;
 * {@link #prepare} then checks the id, the action and the media type before a byte of the body is
 * read, and {@link #run} acts on the strictly read body ({@link StrictBody}).
 */
final class ExecutionActions {
  private static final Set<String> ACTIONS = Set.of("resolve", "confirm", "cancel");
  private static final List<String> RESOLVE_MEMBERS = List.of("outcome", "result");
  private static final String ID = "tally.admin.id";

  private final Operator operator;
  private final Duration retention;

  ExecutionActions(Operator operator, Duration retention) {
    this.operator = operator;
    this.retention = retention;
  }

  /** 400 for a bad id, 404 for an unknown action, 415 unless the body is declared JSON. */
  void prepare(RoutingContext ctx) {
    ExecutionId id = ExecutionReads.id(ctx);
    if (id == null) {
      return;
    }
    String action = ctx.pathParam("action");
    if (!ACTIONS.contains(action)) {
      AdminReplies.error(ctx, 404, "NOT_FOUND", "no such action: " + AdminReplies.quote(action));
      return;
    }
    String refused = JsonOnly.problem(ctx.request().getHeader("Content-Type"));
    if (refused != null) {
      ctx.response().putHeader("Accept", JsonOnly.MEDIA_TYPE);
      AdminReplies.error(ctx, 415, "UNSUPPORTED_MEDIA_TYPE", refused);
      return;
    }
    ctx.put(ID, id);
    ctx.next();
  }

  /** Acts once the body has been read (at most {@link AdminServer#MAX_BODY} bytes). */
  void run(RoutingContext ctx) {
    ExecutionId id = ctx.get(ID);
    String action = ctx.pathParam("action");
    boolean resolve = action.equals("resolve");
    StrictBody.Parsed body =
        StrictBody.object(
            ctx.body().buffer() == null ? null : ctx.body().buffer().getBytes(),
            !resolve,
            resolve ? RESOLVE_MEMBERS : List.of());
    if (body.problem() != null) {
      AdminReplies.error(ctx, 400, "INVALID_BODY", body.problem());
      return;
    }
    switch (action) {
      case "confirm", "cancel" ->
          AdminReplies.error(
              ctx,
              403,
              "DECIDED_BY_ITS_ACTOR",
              "only the actor that made the call may "
                  + action
                  + " it: POST /v1/actions/{id}/"
                  + action
                  + " with its own credential (or the console)");
      default -> resolve(ctx, id, body.object());
    }
  }

  private void resolve(RoutingContext ctx, ExecutionId id, ObjectNode body) {
    JsonNode outcome = body.get("outcome");
    String o = outcome != null && outcome.isTextual() ? outcome.asText() : null;
    if (o == null || !o.equals("completed") && !o.equals("failed")) {
      AdminReplies.error(
          ctx,
          400,
          "INVALID_BODY",
          "outcome: "
              + (o == null ? ToolResultShape.kind(outcome) : AdminReplies.quote(o))
              + " (expected: completed or failed)");
      return;
    }
    JsonNode result = body.get("result");
    if (o.equals("failed")) {
      if (result != null) {
        AdminReplies.error(
            ctx,
            400,
            "INVALID_BODY",
            "result: present with outcome failed (expected: a result only with completed)");
        return;
      }
      AdminReplies.execution(ctx, operator.resolveFailed(id));
      return;
    }
    String shape = ToolResultShape.problem(result);
    if (shape != null) {
      AdminReplies.error(ctx, 400, "INVALID_BODY", shape);
      return;
    }
    AdminReplies.execution(
        ctx,
        operator.resolveCompleted(
            id, StrictBody.bytes(result), result.path("isError").asBoolean(false), retention));
  }
}
