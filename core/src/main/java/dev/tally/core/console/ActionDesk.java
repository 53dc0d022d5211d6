package dev.tally.core.console;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tally.core.actor.ActorResolvers;
import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.gate.Confirmations;
import dev.tally.core.mcp.ActivityRecord;
import dev.tally.core.mcp.Headers;
import dev.tally.core.store.ExecutionQuery;
import dev.tally.core.store.ExecutionStore;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A person's own pending actions (issue 18), as the admin API answers them in both adapters: {@code
 * GET /v1/actions}, {@code GET /v1/actions/{id}}, {@code POST /v1/actions/{id}/confirm|cancel}. The
 * caller is who its own credential says (its request's headers, resolved as MCP calls are; never
 * the admin token): only the actor that made a call sees or decides it, and anyone else gets the
 * same neutral 404 as for a call that is no longer pending. Confirming runs the call through the
 * adapter's {@link Runner} and answers once its outcome is recorded.
 *
 * <p>Transport-free: every method takes what the request said and completes with an {@link
 * AdminReply}; the adapters' shells only move bytes.
 */
public final class ActionDesk {
  private static final ActionPath PATH =
      new ActionPath("actions", java.util.Set.of("confirm", "cancel"));

  /** What anyone but the call's own actor is told, whatever the reason. */
  public static final String NEUTRAL =
      "no longer pending: decided, expired, or requested by someone else";

  /** How many recent executions {@code GET /v1/actions?recent} shows. */
  public static final int RECENT = 20;

  /**
   * How an adapter sends a confirmed call itself: {@code run} with the confirming request's {@code
   * authorization} (may be null); completes with the execution as settled, never exceptionally.
   */
  @FunctionalInterface
  public interface Runner {
    CompletionStage<Execution> run(Confirmations.Execute run, String authorization);
  }

  private final Confirmations confirmations;
  private final ExecutionStore store;
  private final Clock clock;

  private ActionDesk(Confirmations confirmations, ExecutionStore store, Clock clock) {
    this.confirmations = confirmations;
    this.store = store;
    this.clock = clock;
  }

  public static ActionDesk of(Confirmations confirmations, ExecutionStore store, Clock clock) {
    return new ActionDesk(confirmations, store, clock);
  }

  /**
   * The caller's pending actions, newest first, each with its preview and time left ({@code recent}
   * false); or its {@value #RECENT} most recent executions in any state, with their timelines.
   */
  public CompletionStage<AdminReply> list(Headers headers, boolean recent) {
    String actor = confirmations.actorOf(headers);
    if (ActorResolvers.ANONYMOUS.equals(actor)) {
      return done(AdminReply.json(200, items(JsonNodeFactory.instance.arrayNode())));
    }
    if (recent) {
      return store
          .list(new ExecutionQuery(null, null, actor, null, RECENT))
          .thenApply(
              page -> {
                ArrayNode items = JsonNodeFactory.instance.arrayNode();
                page.items().forEach(e -> items.add(ActivityRecord.of(e)));
                return AdminReply.json(200, items(items));
              })
          .exceptionally(err -> AdminReply.storeDown());
    }
    return confirmations
        .expireDue()
        .exceptionally(e -> 0)
        .thenCompose(n -> confirmations.pendingOf(actor))
        .thenCompose(
            list -> {
              ArrayNode items = JsonNodeFactory.instance.arrayNode();
              CompletableFuture<Void> all = CompletableFuture.completedFuture(null);
              for (Execution e : list) {
                all = all.thenCompose(v -> view(e).thenAccept(items::add).toCompletableFuture());
              }
              return all.thenApply(v -> AdminReply.json(200, items(items)));
            })
        .exceptionally(err -> AdminReply.storeDown());
  }

  /** One of the caller's own actions ({@code rawId}), in any state; the neutral 404 otherwise. */
  public CompletionStage<AdminReply> one(String rawId, Headers headers) {
    ExecutionId id = ActionPath.id(rawId);
    if (id == null) {
      return done(PATH.badId());
    }
    String actor = confirmations.actorOf(headers);
    return store
        .find(id)
        .thenCompose(
            f -> {
              Optional<Execution> own =
                  f.filter(e -> e.actor().equals(actor) && !ActorResolvers.ANONYMOUS.equals(actor));
              if (own.isEmpty()) {
                return CompletableFuture.completedFuture(
                    AdminReply.error(404, "NOT_PENDING", NEUTRAL));
              }
              return confirmations
                  .expireIfDue(own.get())
                  .thenCompose(this::view)
                  .thenApply(v -> AdminReply.json(200, v));
            })
        .exceptionally(err -> AdminReply.storeDown());
  }

  /**
   * What is wrong with a decision request before its body is read: a bad id (400), an unknown
   * action (404), a body not declared JSON (415: no form post can act). Empty when it may go on.
   */
  public Optional<AdminReply> check(String rawId, String action, String contentType) {
    return PATH.check(rawId, action, contentType);
  }

  /**
   * Confirms or cancels ({@code action}) the action {@code rawId} for the caller with {@code
   * headers}; a confirmed call is run by {@code runner}. The body must be empty or {@code {}}.
   */
  public CompletionStage<AdminReply> decide(
      String rawId,
      String action,
      String contentType,
      byte[] body,
      Headers headers,
      Runner runner) {
    Optional<AdminReply> bad = check(rawId, action, contentType);
    if (bad.isPresent()) {
      return done(bad.get());
    }
    StrictBody.Parsed parsed = StrictBody.object(body, true, List.of());
    if (parsed.problem() != null) {
      return done(AdminReply.error(400, "INVALID_BODY", parsed.problem()));
    }
    ExecutionId id = ActionPath.id(rawId);
    boolean confirm = action.equals("confirm");
    return (confirm ? confirmations.confirm(id, headers) : confirmations.cancel(id, headers))
        .thenCompose(o -> answer(o, headers, runner))
        .exceptionally(err -> AdminReply.storeDown());
  }

  private CompletionStage<AdminReply> answer(
      Confirmations.Outcome o, Headers headers, Runner runner) {
    if (o instanceof Confirmations.Execute run) {
      return runner
          .run(run, headers.get("Authorization"))
          .exceptionally(err -> run.inFlight().execution())
          .thenCompose(
              e -> {
                ObjectNode out = ActivityRecord.of(e);
                out.put("decision", "confirmed");
                return result(e)
                    .thenApply(
                        r -> {
                          if (r != null) {
                            out.set("result", r);
                          }
                          return AdminReply.json(200, out);
                        });
              });
    }
    if (o instanceof Confirmations.Cancelled c) {
      ObjectNode out = ActivityRecord.of(c.execution());
      out.put("decision", "cancelled");
      return done(AdminReply.json(200, out));
    }
    if (o instanceof Confirmations.Refused r) {
      ObjectNode out = JsonNodeFactory.instance.objectNode();
      ObjectNode err = out.putObject("error");
      err.put("code", r.error().code().name());
      err.put("message", r.error().message());
      out.set("execution", ActivityRecord.of(r.execution()));
      return done(AdminReply.json(409, out));
    }
    Confirmations.NotPending n = (Confirmations.NotPending) o;
    if (n.own().isEmpty()) {
      return done(AdminReply.error(404, "NOT_PENDING", NEUTRAL));
    }
    ObjectNode out = JsonNodeFactory.instance.objectNode();
    ObjectNode err = out.putObject("error");
    err.put("code", "NOT_PENDING");
    err.put("message", "no longer pending: it is " + n.own().get().state().wireName());
    out.set("execution", ActivityRecord.of(n.own().get()));
    return done(AdminReply.json(409, out));
  }

  private CompletionStage<JsonNode> result(Execution e) {
    if (!e.state().hasResult()) {
      return CompletableFuture.completedFuture(null);
    }
    return store
        .result(e.id())
        .thenApply(
            b -> {
              try {
                return b.isPresent() ? StrictBody.tree(b.get()) : null;
              } catch (IOException x) {
                return null;
              }
            })
        .exceptionally(err -> null);
  }

  /** What the person sees of one action: record, expiry, time left, preview. */
  private CompletionStage<ObjectNode> view(Execution e) {
    ObjectNode v = ActivityRecord.of(e);
    v.put("actionId", e.id().value());
    if (e.state() != ExecutionState.PENDING_CONFIRMATION) {
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

  private static ObjectNode items(ArrayNode items) {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    o.set("items", items);
    return o;
  }

  private static CompletionStage<AdminReply> done(AdminReply r) {
    return CompletableFuture.completedFuture(r);
  }
}
