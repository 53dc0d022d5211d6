package dev.tally.sidecar.admin;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;

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

  /**
   * Writes the reply {@code stage} completes with, on the request's context; 503 {@code
   * STORE_UNAVAILABLE} if it fails.
   */
  static void sendWhenDone(
      RoutingContext ctx,
      java.util.concurrent.CompletionStage<dev.tally.core.console.AdminReply> stage) {
    Future.fromCompletionStage(stage, ctx.vertx().getOrCreateContext())
        .onSuccess(r -> send(ctx, r))
        .onFailure(err -> send(ctx, dev.tally.core.console.AdminReply.storeDown()));
  }

  /**
   * Refuses with {@code refusal} when there is one (a desk's check before the body is read), else
   * lets the route go on.
   */
  static void sendOrNext(
      RoutingContext ctx, java.util.Optional<dev.tally.core.console.AdminReply> refusal) {
    if (refusal.isPresent()) {
      send(ctx, refusal.get());
    } else {
      ctx.next();
    }
  }

  /** Writes a coded error. */
  static Future<Void> error(RoutingContext ctx, int status, String code, String message) {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    ObjectNode e = o.putObject("error");
    e.put("code", code);
    e.put("message", message);
    return json(ctx, status, o);
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
