package dev.tally.core.console;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.gate.Operator;
import dev.tally.core.mcp.ActivityRecord;
import dev.tally.core.store.ExecutionQuery;
import dev.tally.core.store.ExecutionStore;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * The operator's execution resource (docs/admin-api.md), as both adapters answer it behind the
 * admin token: {@code GET /v1/executions?state=&tool=&limit=&before=} (a page, newest first),
 * {@code GET /v1/executions/{id}} (one activity record with its timeline), {@code POST
 * /v1/executions/{id}/resolve} (settle an {@code outcome_unknown} execution as {@code completed}
 * with an MCP {@code CallToolResult}, or {@code failed}); {@code …/confirm|cancel} are refused, as
 * only the call's own actor decides it ({@link ActionDesk}).
 *
 * <p>Transport-free: each method takes what the request said and completes with an {@link
 * AdminReply}, never exceptionally; the sidecar's Vert.x routes and the filter's servlet only move
 * bytes. Who may call it (the admin token, the browser defences) is the shells' to check first.
 */
public final class ExecutionDesk {
  /** Items per page when {@code limit} is not given. */
  public static final int DEFAULT_LIMIT = 50;

  private static final ActionPath PATH =
      new ActionPath("executions", Set.of("resolve", "confirm", "cancel"));
  private static final List<String> RESOLVE_MEMBERS = List.of("outcome", "result");

  private final ExecutionStore store;
  private final Operator operator;
  private final Duration retention;

  private ExecutionDesk(ExecutionStore store, Operator operator, Duration retention) {
    this.store = store;
    this.operator = operator;
    this.retention = retention;
  }

  /**
   * A desk over {@code store}; {@code operator} settles executions, a resolved result is kept for
   * {@code retention} ({@code tools.default.resultRetention}).
   */
  public static ExecutionDesk of(ExecutionStore store, Operator operator, Duration retention) {
    return new ExecutionDesk(store, operator, retention);
  }

  /** The answer to any other method or path under {@code /v1/executions}. */
  public static AdminReply methodNotAllowed() {
    return AdminReply.error(
        405,
        "METHOD_NOT_ALLOWED",
        "GET /v1/executions, GET /v1/executions/{id} or POST …/{id}/{resolve|confirm|cancel}");
  }

  /** {@code GET /v1/executions/{rawId}}: the activity record with its actor, or 404. */
  public CompletionStage<AdminReply> one(String rawId) {
    ExecutionId id = ActionPath.id(rawId);
    if (id == null) {
      return done(PATH.badId());
    }
    return answer(store.find(id).thenApply(o -> o.orElse(null)));
  }

  /**
   * {@code GET /v1/executions} with the query parameters {@code param} answers ({@code null}: not
   * given): {@code state}, {@code tool}, {@code limit} (1–{@value ExecutionQuery#MAX_LIMIT}),
   * {@code before} (the previous page's {@code next}).
   */
  public CompletionStage<AdminReply> list(Function<String, String> param) {
    ExecutionState state = null;
    String s = param.apply("state");
    if (s != null) {
      try {
        state = ExecutionState.fromWireName(s);
      } catch (IllegalArgumentException e) {
        return done(
            badQuery(
                "state: " + AdminReply.quote(s) + " (expected: a state like outcome_unknown)"));
      }
    }
    int limit = DEFAULT_LIMIT;
    String l = param.apply("limit");
    if (l != null) {
      try {
        limit = Integer.parseInt(l);
      } catch (NumberFormatException e) {
        limit = -1;
      }
      if (limit < 1 || limit > ExecutionQuery.MAX_LIMIT) {
        return done(
            badQuery(
                "limit: "
                    + AdminReply.quote(l)
                    + " (expected: 1-"
                    + ExecutionQuery.MAX_LIMIT
                    + ")"));
      }
    }
    String before = param.apply("before");
    if (before != null && !ExecutionId.isValid(before)) {
      return done(
          badQuery(
              "before: "
                  + AdminReply.quote(before)
                  + " (expected: an execution id, as in the previous page's \"next\")"));
    }
    ExecutionQuery q = new ExecutionQuery(state, param.apply("tool"), null, before, limit);
    CompletionStage<dev.tally.core.store.Page> page;
    try {
      page = store.list(q);
    } catch (RuntimeException e) {
      return done(unreadable());
    }
    return page.thenApply(
            p -> {
              ObjectNode o = JsonNodeFactory.instance.objectNode();
              ArrayNode items = o.putArray("items");
              p.items().forEach(e -> items.add(withActor(e)));
              if (p.next() != null) {
                o.put("next", p.next());
              }
              return AdminReply.json(200, o);
            })
        .exceptionally(err -> unreadable());
  }

  /**
   * What is wrong with {@code POST /v1/executions/{rawId}/{action}} before its body is read: a bad
   * id (400 {@code INVALID_ID}), an unknown action (404), a body not declared JSON (415, with
   * {@code Accept: application/json}). Empty when it may go on.
   */
  public Optional<AdminReply> check(String rawId, String action, String contentType) {
    return PATH.check(rawId, action, contentType);
  }

  /**
   * {@code POST /v1/executions/{rawId}/{action}} with {@code body} (read strictly, {@link
   * StrictBody}): {@code resolve} takes {@code {"outcome":"failed"}} or {@code
   * {"outcome":"completed","result":{…CallToolResult…}}}; {@code confirm} and {@code cancel} answer
   * 403 {@code DECIDED_BY_ITS_ACTOR}.
   */
  public CompletionStage<AdminReply> act(
      String rawId, String action, String contentType, byte[] body) {
    Optional<AdminReply> bad = check(rawId, action, contentType);
    if (bad.isPresent()) {
      return done(bad.get());
    }
    boolean resolve = action.equals("resolve");
    StrictBody.Parsed parsed =
        StrictBody.object(body, !resolve, resolve ? RESOLVE_MEMBERS : List.of());
    if (parsed.problem() != null) {
      return done(AdminReply.error(400, "INVALID_BODY", parsed.problem()));
    }
    if (!resolve) {
      return done(
          AdminReply.error(
              403,
              "DECIDED_BY_ITS_ACTOR",
              "only the actor that made the call may "
                  + action
                  + " it: POST /v1/actions/{id}/"
                  + action
                  + " with its own credential (or the console)"));
    }
    return resolve(ActionPath.id(rawId), parsed.object());
  }

  private CompletionStage<AdminReply> resolve(ExecutionId id, ObjectNode body) {
    JsonNode outcome = body.get("outcome");
    String o = outcome != null && outcome.isTextual() ? outcome.asText() : null;
    if (o == null || !o.equals("completed") && !o.equals("failed")) {
      return done(
          AdminReply.error(
              400,
              "INVALID_BODY",
              "outcome: "
                  + (o == null ? StrictBody.kind(outcome) : AdminReply.quote(o))
                  + " (expected: completed or failed)"));
    }
    JsonNode result = body.get("result");
    if (o.equals("failed")) {
      if (result != null) {
        return done(
            AdminReply.error(
                400,
                "INVALID_BODY",
                "result: present with outcome failed (expected: a result only with completed)"));
      }
      return answer(call(() -> operator.resolveFailed(id)));
    }
    String shape = ToolResultShape.problem(result);
    if (shape != null) {
      return done(AdminReply.error(400, "INVALID_BODY", shape));
    }
    return answer(
        call(
            () ->
                operator.resolveCompleted(
                    id,
                    StrictBody.bytes(result),
                    result.path("isError").asBoolean(false),
                    retention)));
  }

  /**
   * The activity record {@code stage} completes with (200), 404 when it is {@code null} (no such
   * execution), 404/409 for an {@link Operator.OperatorException}, 503 when the store failed.
   */
  private static CompletionStage<AdminReply> answer(CompletionStage<Execution> stage) {
    return stage.handle(
        (e, err) -> {
          if (err == null) {
            return e == null
                ? AdminReply.error(404, "NOT_FOUND", "no such execution")
                : AdminReply.json(200, withActor(e));
          }
          Throwable c = err;
          while (c instanceof CompletionException && c.getCause() != null) {
            c = c.getCause();
          }
          if (!(c instanceof Operator.OperatorException) && c.getCause() != null) {
            c = c.getCause();
          }
          if (c instanceof Operator.OperatorException oe) {
            int status = oe.refusal() == Operator.Refusal.NOT_FOUND ? 404 : 409;
            return AdminReply.error(status, oe.refusal().name(), oe.getMessage());
          }
          return AdminReply.storeDown();
        });
  }

  private static CompletionStage<Execution> call(
      java.util.function.Supplier<CompletionStage<Execution>> action) {
    try {
      return action.get();
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * The activity record of {@code e} with its {@code actor} (the resolved actor id, never a
   * credential), which only the operator's views show: revoking an actor needs it.
   */
  public static ObjectNode withActor(Execution e) {
    ObjectNode o = ActivityRecord.of(e);
    o.put("actor", e.actor());
    return o;
  }

  private static AdminReply badQuery(String message) {
    return AdminReply.error(400, "INVALID_QUERY", message);
  }

  private static AdminReply unreadable() {
    return AdminReply.error(503, "STORE_UNAVAILABLE", "the store cannot be read now");
  }

  private static CompletionStage<AdminReply> done(AdminReply r) {
    return CompletableFuture.completedFuture(r);
  }
}
