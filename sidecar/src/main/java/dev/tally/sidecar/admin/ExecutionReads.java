package dev.tally.sidecar.admin;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.store.ExecutionQuery;
import dev.tally.core.store.ExecutionStore;
import io.vertx.core.Future;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;

/**
 * The execution resource, read side: {@code GET /v1/executions/{id}} (one activity record) and
 * {@code GET /v1/executions?state=&tool=&limit=&before=} (a page, newest first).
 */
final class ExecutionReads {
  static final int DEFAULT_LIMIT = 50;

  private final ExecutionStore store;

  ExecutionReads(ExecutionStore store) {
    this.store = store;
  }

  /** The id in the path, or {@code null} after answering 400 {@code INVALID_ID}. */
  static ExecutionId id(RoutingContext ctx) {
    String raw = ctx.pathParam("id");
    if (raw == null || !ExecutionId.isValid(raw)) {
      AdminReplies.error(ctx, 400, "INVALID_ID", "path: expected /v1/executions/act_<ULID>");
      return null;
    }
    return ExecutionId.parse(raw);
  }

  void one(RoutingContext ctx) {
    ExecutionId id = id(ctx);
    if (id != null) {
      AdminReplies.execution(ctx, store.find(id).thenApply(o -> o.orElse(null)));
    }
  }

  void list(RoutingContext ctx) {
    HttpServerRequest req = ctx.request();
    ExecutionState state = null;
    String s = req.getParam("state");
    if (s != null) {
      try {
        state = ExecutionState.fromWireName(s);
      } catch (IllegalArgumentException e) {
        AdminReplies.error(
            ctx,
            400,
            "INVALID_QUERY",
            "state: " + AdminReplies.quote(s) + " (expected: a state like outcome_unknown)");
        return;
      }
    }
    int limit = DEFAULT_LIMIT;
    String l = req.getParam("limit");
    if (l != null) {
      try {
        limit = Integer.parseInt(l);
      } catch (NumberFormatException e) {
        limit = -1;
      }
      if (limit < 1 || limit > ExecutionQuery.MAX_LIMIT) {
        AdminReplies.error(
            ctx,
            400,
            "INVALID_QUERY",
            "limit: " + AdminReplies.quote(l) + " (expected: 1-" + ExecutionQuery.MAX_LIMIT + ")");
        return;
      }
    }
    String before = req.getParam("before");
    if (before != null && !ExecutionId.isValid(before)) {
      AdminReplies.error(
          ctx,
          400,
          "INVALID_QUERY",
          "before: "
              + AdminReplies.quote(before)
              + " (expected: an execution id, as in the previous page's \"next\")");
      return;
    }
    ExecutionQuery q = new ExecutionQuery(state, req.getParam("tool"), null, before, limit);
    Future.fromCompletionStage(store.list(q), ctx.vertx().getOrCreateContext())
        .onSuccess(
            page -> {
              ObjectNode o = JsonNodeFactory.instance.objectNode();
              ArrayNode items = o.putArray("items");
              page.items().forEach(e -> items.add(AdminReplies.withActor(e)));
              if (page.next() != null) {
                o.put("next", page.next());
              }
              AdminReplies.json(ctx, 200, o);
            })
        .onFailure(
            err ->
                AdminReplies.error(ctx, 503, "STORE_UNAVAILABLE", "the store cannot be read now"));
  }
}
