package dev.tally.sidecar.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.gate.Confirmations;
import dev.tally.core.mcp.ActivityRecord;
import dev.tally.core.mcp.Headers;
import io.vertx.core.Future;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;

/**
 * A person's own pending actions (issue 18): {@code GET /v1/actions}, {@code GET /v1/actions/{id}},
 * {@code POST /v1/actions/{id}/confirm|cancel}. The caller is who its own credential says (the
 * request's headers, resolved as the MCP port resolves them; never the admin token): only the actor
 * that made a call sees or decides it, and anyone else gets the same neutral 404 as for a call that
 * is no longer pending. Confirming runs the call ({@link Confirmations.Execute}) and answers once
 * its outcome is recorded.
 */
final class ActionRoutes {
  /** What anyone but the call's own actor is told, whatever the reason. */
  static final String NEUTRAL = "no longer pending: decided, expired, or requested by someone else";

  private final Confirmations confirmations;
  private final BiFunction<Confirmations.Execute, String, Future<Execution>> runner;
  private final dev.tally.core.store.ExecutionStore store;
  private final Clock clock;

  ActionRoutes(
      Confirmations confirmations,
      BiFunction<Confirmations.Execute, String, Future<Execution>> runner,
      dev.tally.core.store.ExecutionStore store,
      Clock clock) {
    this.confirmations = confirmations;
    this.runner = runner;
    this.store = store;
    this.clock = clock;
  }

  static Headers headers(HttpServerRequest req) {
    return req::getHeader;
  }

  /** The caller's pending actions, newest first, each with its preview and time left. */
  void list(RoutingContext ctx) {
    String actor = confirmations.actorOf(headers(ctx.request()));
    if (dev.tally.core.actor.ActorResolvers.ANONYMOUS.equals(actor)) {
      AdminReplies.json(
          ctx,
          200,
          JsonNodeFactory.instance.objectNode().set("items", JsonNodeFactory.instance.arrayNode()));
      return;
    }
    if (ctx.request().getParam("recent") != null) {
      recent(ctx, actor);
      return;
    }
    Future.fromCompletionStage(
            confirmations
                .expireDue()
                .exceptionally(e -> 0)
                .thenCompose(n -> confirmations.pendingOf(actor))
                .thenCompose(
                    list -> {
                      ArrayNode items = JsonNodeFactory.instance.arrayNode();
                      CompletableFuture<Void> all = CompletableFuture.completedFuture(null);
                      for (Execution e : list) {
                        all =
                            all.thenCompose(
                                v -> view(e).thenAccept(items::add).toCompletableFuture());
                      }
                      return all.thenApply(v -> items);
                    }),
            ctx.vertx().getOrCreateContext())
        .onSuccess(
            items ->
                AdminReplies.json(
                    ctx, 200, JsonNodeFactory.instance.objectNode().set("items", items)))
        .onFailure(err -> storeDown(ctx));
  }

  /** The caller's most recent executions ({@value #RECENT}), any state, with their timelines. */
  private void recent(RoutingContext ctx, String actor) {
    Future.fromCompletionStage(
            store.list(new dev.tally.core.store.ExecutionQuery(null, null, actor, null, RECENT)),
            ctx.vertx().getOrCreateContext())
        .onSuccess(
            page -> {
              ArrayNode items = JsonNodeFactory.instance.arrayNode();
              page.items().forEach(e -> items.add(ActivityRecord.of(e)));
              AdminReplies.json(
                  ctx, 200, JsonNodeFactory.instance.objectNode().set("items", items));
            })
        .onFailure(err -> storeDown(ctx));
  }

  static final int RECENT = 20;

  /** One of the caller's own actions, in any state; the neutral 404 otherwise. */
  void one(RoutingContext ctx) {
    ExecutionId id = id(ctx);
    if (id == null) {
      return;
    }
    String actor = confirmations.actorOf(headers(ctx.request()));
    Future.fromCompletionStage(
            store
                .find(id)
                .thenCompose(
                    f -> {
                      Optional<Execution> own =
                          f.filter(
                              e ->
                                  e.actor().equals(actor)
                                      && !dev.tally.core.actor.ActorResolvers.ANONYMOUS.equals(
                                          actor));
                      if (own.isEmpty()) {
                        return CompletableFuture.completedFuture((ObjectNode) null);
                      }
                      return confirmations.expireIfDue(own.get()).thenCompose(this::view);
                    }),
            ctx.vertx().getOrCreateContext())
        .onSuccess(
            v -> {
              if (v == null) {
                AdminReplies.error(ctx, 404, "NOT_PENDING", NEUTRAL);
              } else {
                AdminReplies.json(ctx, 200, v);
              }
            })
        .onFailure(err -> storeDown(ctx));
  }

  /** 400 for a bad id, 415 unless the body is declared JSON (no form post can act). */
  void prepare(RoutingContext ctx) {
    if (id(ctx) == null) {
      return;
    }
    String action = ctx.pathParam("action");
    if (!action.equals("confirm") && !action.equals("cancel")) {
      AdminReplies.error(ctx, 404, "NOT_FOUND", "no such action: " + AdminReplies.quote(action));
      return;
    }
    String refused = JsonOnly.problem(ctx.request().getHeader("Content-Type"));
    if (refused != null) {
      ctx.response().putHeader("Accept", JsonOnly.MEDIA_TYPE);
      AdminReplies.error(ctx, 415, "UNSUPPORTED_MEDIA_TYPE", refused);
      return;
    }
    ctx.next();
  }

  void decide(RoutingContext ctx) {
    ExecutionId id = id(ctx);
    StrictBody.Parsed body = StrictBody.object(ctx.body().buffer(), true, java.util.List.of());
    if (body.problem() != null) {
      AdminReplies.error(ctx, 400, "INVALID_BODY", body.problem());
      return;
    }
    Headers h = headers(ctx.request());
    boolean confirm = ctx.pathParam("action").equals("confirm");
    Future.fromCompletionStage(
            confirm ? confirmations.confirm(id, h) : confirmations.cancel(id, h),
            ctx.vertx().getOrCreateContext())
        .onFailure(err -> storeDown(ctx))
        .onSuccess(
            o -> {
              if (o instanceof Confirmations.Execute run) {
                runner
                    .apply(run, ctx.request().getHeader("Authorization"))
                    .onComplete(
                        done -> {
                          Execution e =
                              done.succeeded() ? done.result() : run.inFlight().execution();
                          ObjectNode out = ActivityRecord.of(e);
                          out.put("decision", "confirmed");
                          result(e)
                              .onComplete(
                                  r -> {
                                    if (r.succeeded() && r.result() != null) {
                                      out.set("result", r.result());
                                    }
                                    AdminReplies.json(ctx, 200, out);
                                  });
                        });
              } else if (o instanceof Confirmations.Cancelled c) {
                ObjectNode out = ActivityRecord.of(c.execution());
                out.put("decision", "cancelled");
                AdminReplies.json(ctx, 200, out);
              } else if (o instanceof Confirmations.Refused r) {
                ObjectNode out = JsonNodeFactory.instance.objectNode();
                ObjectNode err = out.putObject("error");
                err.put("code", r.error().code().name());
                err.put("message", r.error().message());
                out.set("execution", ActivityRecord.of(r.execution()));
                AdminReplies.json(ctx, 409, out);
              } else {
                Confirmations.NotPending n = (Confirmations.NotPending) o;
                if (n.own().isPresent()) {
                  ObjectNode out = JsonNodeFactory.instance.objectNode();
                  ObjectNode err = out.putObject("error");
                  err.put("code", "NOT_PENDING");
                  err.put(
                      "message", "no longer pending: it is " + n.own().get().state().wireName());
                  out.set("execution", ActivityRecord.of(n.own().get()));
                  AdminReplies.json(ctx, 409, out);
                } else {
                  AdminReplies.error(ctx, 404, "NOT_PENDING", NEUTRAL);
                }
              }
            });
  }

  private Future<JsonNode> result(Execution e) {
    if (!e.state().hasResult()) {
      return Future.succeededFuture(null);
    }
    return Future.fromCompletionStage(
        store
            .result(e.id())
            .thenApply(
                b -> {
                  try {
                    return b.isPresent() ? AdminReplies.JSON.readTree(b.get()) : null;
                  } catch (IOException x) {
                    return null;
                  }
                }));
  }

  /** What the person sees of one action: record, expiry, time left, preview. */
  private java.util.concurrent.CompletionStage<ObjectNode> view(Execution e) {
    ObjectNode v = ActivityRecord.of(e);
    v.put("actionId", e.id().value());
    if (e.state() != dev.tally.core.execution.ExecutionState.PENDING_CONFIRMATION) {
      return CompletableFuture.completedFuture(v);
    }
    Instant expires = confirmations.expiresAt(e);
    v.put("expiresAt", expires.toString());
    long left = Math.max(0, Duration.between(clock.instant(), expires).getSeconds());
    v.put("expiresInSeconds", left);
    v.put("confirmUrl", confirmations.confirmUrl(e.id()));
    return confirmations
        .storedCall(e)
        .thenApply(
            b -> {
              b.flatMap(bytes -> confirmations.preview(e.tool(), bytes, ""))
                  .ifPresent(p -> v.set("preview", p));
              return v;
            });
  }

  private static ExecutionId id(RoutingContext ctx) {
    String raw = ctx.pathParam("id");
    if (raw == null || !ExecutionId.isValid(raw)) {
      AdminReplies.error(ctx, 400, "INVALID_ID", "path: expected /v1/actions/act_<ULID>");
      return null;
    }
    return ExecutionId.parse(raw);
  }

  private static void storeDown(RoutingContext ctx) {
    AdminReplies.error(ctx, 503, "STORE_UNAVAILABLE", "the store cannot record this now; retry");
  }
}
