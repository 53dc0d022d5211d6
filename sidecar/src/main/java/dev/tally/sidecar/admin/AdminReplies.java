package dev.tally.sidecar.admin;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tally.core.execution.Execution;
import dev.tally.core.gate.Operator;
import dev.tally.core.mcp.ActivityRecord;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;
import java.util.concurrent.CompletionStage;

/**
 * How the admin port answers: JSON bodies, and every error as {@code
 * {"error":{"code":"…","message":"…"}}} (docs/admin-api.md, "Errors"). Messages quote at most
 * {@value #MAX_QUOTED} characters of anything the client sent.
 */
final class AdminReplies {
  static final ObjectMapper JSON = new ObjectMapper();
  static final int MAX_QUOTED = dev.tally.core.console.AdminReply.MAX_QUOTED;

  private AdminReplies() {}

  /** Writes {@code body}; completes once written (or could not be). A second answer is dropped. */
  static Future<Void> json(RoutingContext ctx, int status, JsonNode body) {
    HttpServerResponse r = ctx.response();
    if (r.ended() || r.closed()) {
      return Future.succeededFuture();
    }
    try {
      return r.setStatusCode(status)
          .putHeader("Content-Type", "application/json")
          .putHeader("Cache-Control", "no-store")
          .end(Buffer.buffer(JSON.writeValueAsBytes(body)));
    } catch (JsonProcessingException e) {
      return r.setStatusCode(500).end();
    }
  }

  /** Writes {@code reply}, with its extra headers. */
  static Future<Void> send(RoutingContext ctx, dev.tally.core.console.AdminReply reply) {
    HttpServerResponse r = ctx.response();
    if (r.ended() || r.closed()) {
      return Future.succeededFuture();
    }
    reply.headers().forEach(r::putHeader);
    return json(ctx, reply.status(), reply.body());
  }

  /** Writes a coded error. */
  static Future<Void> error(RoutingContext ctx, int status, String code, String message) {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    ObjectNode e = o.putObject("error");
    e.put("code", code);
    e.put("message", message);
    return json(ctx, status, o);
  }

  /**
   * Answers with the activity record {@code stage} completes with: 200, 404 when it is {@code null}
   * (no such execution), 404/409 for an {@link Operator.OperatorException}, 503 when the store
   * failed.
   */
  static void execution(RoutingContext ctx, CompletionStage<Execution> stage) {
    Future.fromCompletionStage(stage, ctx.vertx().getOrCreateContext())
        .onSuccess(
            e -> {
              if (e == null) {
                error(ctx, 404, "NOT_FOUND", "no such execution");
              } else {
                json(ctx, 200, withActor(e));
              }
            })
        .onFailure(
            err -> {
              Throwable c =
                  err.getCause() != null && !(err instanceof Operator.OperatorException)
                      ? err.getCause()
                      : err;
              if (c instanceof Operator.OperatorException oe) {
                int status = oe.refusal() == Operator.Refusal.NOT_FOUND ? 404 : 409;
                error(ctx, status, oe.refusal().name(), oe.getMessage());
              } else {
                error(ctx, 503, "STORE_UNAVAILABLE", "the store cannot record this now; retry");
              }
            });
  }

  /**
   * The activity record of {@code e} with its {@code actor} (the resolved actor id, never a
   * credential), which only the operator's views show: revoking an actor needs it.
   */
  static ObjectNode withActor(Execution e) {
    ObjectNode o = ActivityRecord.of(e);
    o.put("actor", e.actor());
    return o;
  }

  /** {@code {"status":s}}. */
  static ObjectNode status(String s) {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    o.put("status", s);
    return o;
  }

  /** {@code s} in quotes, cut to {@value #MAX_QUOTED} characters, non-printables replaced. */
  static String quote(String s) {
    return dev.tally.core.console.AdminReply.quote(s);
  }
}
