package dev.tally.sidecar.it;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A minimal stateless 2026-07-28 MCP server (JSON answers only) for the modern-era paths the Java
 * SDK server does not speak: {@code x-mcp-header}, MRTR, and failure modes. Tools: {@code deploy}
 * (region mirrored into {@code Mcp-Param-Region}), {@code ask} (input required until {@code
 * inputResponses} arrive), {@code slow} (never answers), {@code boom} (HTTP 500).
 *
 * <p>Like a strict 2026-07-28 server it validates a {@code tools/call}'s mirrored headers itself
 * (its own decoding, not Tally's): {@code MCP-Protocol-Version}, {@code Mcp-Method}, {@code
 * Mcp-Name} and {@code Mcp-Param-Region} must be present and agree with the body, else HTTP 400
 * with JSON-RPC error -32020 (counted in {@link #headerMismatches}, with what was wrong).
 */
final class ModernUpstream {
  final AtomicInteger effects = new AtomicInteger();
  final List<String> idempotencyKeys = new CopyOnWriteArrayList<>();
  final AtomicInteger posts = new AtomicInteger();
  final List<String> headerMismatches = new CopyOnWriteArrayList<>();

  /** Requests whose connection closed before they were answered (the client side cancelled). */
  final AtomicInteger cancelled = new AtomicInteger();

  private final HttpServer server;

  ModernUpstream(Vertx vertx) throws Exception {
    server =
        vertx
            .createHttpServer()
            .requestHandler(
                req ->
                    req.body()
                        .onSuccess(
                            body -> {
                              posts.incrementAndGet();
                              req.connection()
                                  .closeHandler(
                                      v -> {
                                        if (!req.response().ended()) {
                                          cancelled.incrementAndGet();
                                        }
                                      });
                              String key = req.getHeader("Idempotency-Key");
                              if (key != null) {
                                idempotencyKeys.add(key);
                              }
                              JsonObject msg = body.toJsonObject();
                              Object id = msg.getValue("id");
                              JsonObject params = msg.getJsonObject("params", new JsonObject());
                              String method = msg.getString("method");
                              if ("tools/list".equals(method)) {
                                answer(req, id, tools());
                                return;
                              }
                              if ("server/discover".equals(method)) {
                                answer(req, id, discover());
                                return;
                              }
                              String bad = mismatch(req, params);
                              if (bad != null) {
                                headerMismatches.add(bad);
                                JsonObject err =
                                    new JsonObject()
                                        .put("jsonrpc", "2.0")
                                        .put("id", id)
                                        .put(
                                            "error",
                                            new JsonObject()
                                                .put("code", -32020)
                                                .put("message", "Header mismatch: " + bad));
                                req.response()
                                    .setStatusCode(400)
                                    .putHeader("Content-Type", "application/json")
                                    .end(err.encode());
                                return;
                              }
                              switch (params.getString("name", "")) {
                                case "deploy" -> {
                                  effects.incrementAndGet();
                                  answer(req, id, text("deployed"));
                                }
                                case "ask" -> {
                                  if (params.containsKey("inputResponses")) {
                                    effects.incrementAndGet();
                                    answer(req, id, text("answered"));
                                  } else {
                                    answer(
                                        req,
                                        id,
                                        new JsonObject()
                                            .put("resultType", "input_required")
                                            .put(
                                                "inputRequests",
                                                new JsonObject()
                                                    .put(
                                                        "confirm",
                                                        new JsonObject()
                                                            .put("method", "elicitation/create")))
                                            .put("requestState", "state-1"));
                                  }
                                }
                                case "slow" -> {
                                  // Never answers: the sidecar's upstream timeout must fire.
                                }
                                case "brew" ->
                                    // Answers after 600 ms.
                                    vertx.setTimer(
                                        600,
                                        t -> {
                                          effects.incrementAndGet();
                                          answer(req, id, text("brewed"));
                                        });
                                case "boom" -> req.response().setStatusCode(500).end("internal");
                                default -> req.response().setStatusCode(404).end();
                              }
                            }))
            .listen(0, "127.0.0.1")
            .toCompletionStage()
            .toCompletableFuture()
            .get(10, TimeUnit.SECONDS);
  }

  /** What is wrong with a {@code tools/call}'s mirrored headers, or null when they agree. */
  private static String mismatch(io.vertx.core.http.HttpServerRequest req, JsonObject params) {
    if (!"2026-07-28".equals(req.getHeader("MCP-Protocol-Version"))) {
      return "MCP-Protocol-Version";
    }
    if (!"tools/call".equals(req.getHeader("Mcp-Method"))) {
      return "Mcp-Method";
    }
    if (!params.getString("name", "").equals(decoded(req.getHeader("Mcp-Name")))) {
      return "Mcp-Name";
    }
    Object region = params.getJsonObject("arguments", new JsonObject()).getValue("region");
    String header = req.getHeader("Mcp-Param-Region");
    if ("deploy".equals(params.getString("name"))
        && region != null
        && !String.valueOf(region).equals(decoded(header))) {
      return header == null ? "Mcp-Param-Region missing" : "Mcp-Param-Region";
    }
    return null;
  }

  private static String decoded(String h) {
    if (h == null) {
      return null;
    }
    if (h.startsWith("=?base64?") && h.endsWith("?=") && h.length() >= 11) {
      return new String(
          java.util.Base64.getDecoder().decode(h.substring(9, h.length() - 2)),
          java.nio.charset.StandardCharsets.UTF_8);
    }
    return h;
  }

  private static JsonObject tools() {
    JsonObject deploy =
        new JsonObject()
            .put("name", "deploy")
            .put(
                "inputSchema",
                new JsonObject()
                    .put("type", "object")
                    .put(
                        "properties",
                        new JsonObject()
                            .put(
                                "region",
                                new JsonObject()
                                    .put("type", "string")
                                    .put("x-mcp-header", "Region"))
                            .put("version", new JsonObject().put("type", "string"))));
    JsonObject ask =
        new JsonObject()
            .put("name", "ask")
            .put("inputSchema", new JsonObject().put("type", "object"));
    // ttlMs and cacheScope: required on a 2026-07-28 list result (the SDK v2 client checks).
    return new JsonObject()
        .put("tools", new JsonArray().add(deploy).add(ask))
        .put("ttlMs", 0)
        .put("cacheScope", "private");
  }

  /** The 2026-07-28 {@code server/discover} answer: this version only, tools only. */
  private static JsonObject discover() {
    return new JsonObject()
        .put("resultType", "complete")
        .put("supportedVersions", new JsonArray().add("2026-07-28"))
        .put("capabilities", new JsonObject().put("tools", new JsonObject()))
        .put(
            "_meta",
            new JsonObject()
                .put(
                    "io.modelcontextprotocol/serverInfo",
                    new JsonObject().put("name", "modern-upstream").put("version", "1")));
  }

  private static JsonObject text(String t) {
    return new JsonObject()
        .put("content", new JsonArray().add(new JsonObject().put("type", "text").put("text", t)));
  }

  private static void answer(
      io.vertx.core.http.HttpServerRequest req, Object id, JsonObject result) {
    if (!result.containsKey("resultType")) {
      // 2026-07-28: every result names its type; the SDK v2 client refuses one that does not.
      result.put("resultType", "complete");
    }
    JsonObject r = new JsonObject().put("jsonrpc", "2.0").put("id", id).put("result", result);
    req.response().putHeader("Content-Type", "application/json").end(r.encode());
  }

  String url() {
    return "http://127.0.0.1:" + server.actualPort() + "/mcp";
  }
}
