package dev.tally.sidecar.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
import dev.tally.sidecar.internal.http.Hosts;
import dev.tally.sidecar.internal.http.Lingering;
import dev.tally.sidecar.internal.http.Origins;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * The admin endpoint (separate port from MCP): {@code /healthz}, {@code /readyz}, {@code /metrics}
 * (Prometheus text) and the execution API {@code /v1/executions…}. When a token is configured every
 * {@code /v1} request must carry it as a bearer token; health, readiness and metrics stay open for
 * probes.
 */
public final class AdminServer {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int MAX_BODY = 4 * 1024 * 1024;

  private final Vertx vertx;
  private final HttpServer server;

  private AdminServer(Vertx vertx, HttpServer server) {
    this.vertx = vertx;
    this.server = server;
  }

  /** What the admin endpoint reads from the running process. */
  public interface Probe {
    /** {@code null} when ready, else why not (one short phrase). */
    String notReadyReason();

    /** Prometheus text exposition of the current metrics. */
    String metrics();
  }

  /** Starts the admin endpoint. */
  public static Future<AdminServer> start(
      Vertx vertx,
      AdminOptions options,
      ExecutionStore store,
      Operator operator,
      Duration resolveRetention,
      Probe probe) {
    Routes routes = new Routes(vertx, options, store, operator, resolveRetention, probe);
    return vertx
        .createHttpServer(
            new HttpServerOptions()
                .setHost(options.listen().host())
                .setPort(options.listen().port()))
        .requestHandler(routes::handle)
        .listen()
        .map(s -> new AdminServer(vertx, s));
  }

  public int port() {
    return server.actualPort();
  }

  public Future<Void> close() {
    return server.close();
  }

  /** The request router; small enough to need no framework. */
  private static final class Routes {
    private final Vertx vertx;
    private final AdminOptions options;
    private final ExecutionStore store;
    private final Operator operator;
    private final Duration retention;
    private final Probe probe;
    private final Hosts hosts;
    private final Origins origins = Origins.of(List.of(), true);

    Routes(
        Vertx vertx,
        AdminOptions options,
        ExecutionStore store,
        Operator operator,
        Duration retention,
        Probe probe) {
      this.vertx = vertx;
      this.options = options;
      this.store = store;
      this.operator = operator;
      this.retention = retention;
      this.probe = probe;
      this.hosts = Hosts.forListener(options.listen().host(), options.allowedHosts());
    }

    void handle(HttpServerRequest req) {
      String path = req.path();
      if (!hosts.allows(req)) {
        // DNS rebinding: a web page re-pointed at this loopback port must not read or resolve.
        error(
            req,
            403,
            "FORBIDDEN_HOST",
            "the Host header is not allowed (a loopback listener accepts loopback names and"
                + " sidecar.allowedHosts)");
        return;
      }
      if (!origins.allows(req.getHeader("Origin"))) {
        // Cross-site requests: a page elsewhere must not cancel or confirm executions.
        error(
            req,
            403,
            "FORBIDDEN_ORIGIN",
            "the Origin header is not allowed (the admin API accepts no cross-site requests)");
        return;
      }
      try {
        switch (path) {
          case "/healthz" -> json(req, 200, status("alive"));
          case "/readyz" -> ready(req);
          case "/metrics" ->
              req.response()
                  .putHeader("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
                  .end(probe.metrics());
          default -> {
            if (!path.startsWith("/v1/executions")) {
              error(req, 404, "NOT_FOUND", "no such endpoint: " + quote(path));
            } else if (!authorized(req)) {
              req.response().putHeader("WWW-Authenticate", "Bearer");
              error(req, 401, "UNAUTHORIZED", "a bearer token is required for /v1");
            } else {
              executions(req, path.substring("/v1/executions".length()));
            }
          }
        }
      } catch (RuntimeException e) {
        error(req, 500, "INTERNAL", "admin request failed: " + e.getClass().getSimpleName());
      }
    }

    private void ready(HttpServerRequest req) {
      String why = probe.notReadyReason();
      if (why == null) {
        json(req, 200, status("ready"));
      } else {
        ObjectNode o = status("not_ready");
        o.put("reason", why);
        json(req, 503, o);
      }
    }

    private boolean authorized(HttpServerRequest req) {
      if (options.token() == null) {
        return true;
      }
      String h = req.getHeader("Authorization");
      if (h == null || !h.regionMatches(true, 0, "Bearer ", 0, 7)) {
        return false;
      }
      return MessageDigest.isEqual(
          h.substring(7).strip().getBytes(StandardCharsets.UTF_8),
          options.token().getBytes(StandardCharsets.UTF_8));
    }

    private void executions(HttpServerRequest req, String rest) {
      if (rest.isEmpty() || rest.equals("/")) {
        if (req.method() != HttpMethod.GET) {
          error(req, 405, "METHOD_NOT_ALLOWED", "use GET /v1/executions");
          return;
        }
        list(req);
        return;
      }
      String[] parts = rest.substring(1).split("/", -1);
      if (!ExecutionId.isValid(parts[0])) {
        error(req, 400, "INVALID_ID", "path: expected /v1/executions/act_<ULID>");
        return;
      }
      ExecutionId id = ExecutionId.parse(parts[0]);
      if (parts.length == 1 && req.method() == HttpMethod.GET) {
        reply(req, store.find(id).thenApply(o -> o.orElse(null)), 200);
      } else if (parts.length == 2 && req.method() == HttpMethod.POST) {
        switch (parts[1]) {
          case "resolve" -> readBody(req, body -> resolve(req, id, body));
          case "confirm" -> reply(req, operator.confirm(id), 200);
          case "cancel" -> reply(req, operator.cancel(id), 200);
          default -> error(req, 404, "NOT_FOUND", "no such action: " + quote(parts[1]));
        }
      } else {
        error(
            req,
            405,
            "METHOD_NOT_ALLOWED",
            "GET /v1/executions/{id} or POST …/{resolve|confirm|cancel}");
      }
    }

    private void list(HttpServerRequest req) {
      ExecutionState state = null;
      String s = req.getParam("state");
      if (s != null) {
        try {
          state = ExecutionState.fromWireName(s);
        } catch (IllegalArgumentException e) {
          error(
              req,
              400,
              "INVALID_QUERY",
              "state: " + quote(s) + " (expected: a state like outcome_unknown)");
          return;
        }
      }
      int limit = 50;
      String l = req.getParam("limit");
      if (l != null) {
        try {
          limit = Integer.parseInt(l);
        } catch (NumberFormatException e) {
          limit = -1;
        }
        if (limit < 1 || limit > ExecutionQuery.MAX_LIMIT) {
          error(
              req,
              400,
              "INVALID_QUERY",
              "limit: " + quote(l) + " (expected: 1-" + ExecutionQuery.MAX_LIMIT + ")");
          return;
        }
      }
      String before = req.getParam("before");
      if (before != null && !ExecutionId.isValid(before)) {
        error(
            req,
            400,
            "INVALID_QUERY",
            "before: "
                + quote(before)
                + " (expected: an execution id, as in the previous page's \"next\")");
        return;
      }
      ExecutionQuery q = new ExecutionQuery(state, req.getParam("tool"), null, before, limit);
      Future.fromCompletionStage(store.list(q), vertx.getOrCreateContext())
          .onSuccess(
              page -> {
                ObjectNode o = JsonNodeFactory.instance.objectNode();
                ArrayNode items = o.putArray("items");
                page.items().forEach(e -> items.add(ActivityRecord.of(e)));
                if (page.next() != null) {
                  o.put("next", page.next());
                }
                json(req, 200, o);
              })
          .onFailure(err -> error(req, 503, "STORE_UNAVAILABLE", "the store cannot be read now"));
    }

    private void resolve(HttpServerRequest req, ExecutionId id, JsonNode body) {
      String outcome = body.path("outcome").asText("");
      switch (outcome) {
        case "completed" -> {
          JsonNode result = body.get("result");
          if (result == null || !result.isObject()) {
            error(
                req,
                400,
                "INVALID_BODY",
                "result: expected the tool result object the operator established");
            return;
          }
          byte[] bytes;
          try {
            bytes = JSON.writeValueAsBytes(result);
          } catch (java.io.IOException e) {
            error(req, 400, "INVALID_BODY", "result: not serializable");
            return;
          }
          reply(
              req,
              operator.resolveCompleted(
                  id, bytes, result.path("isError").asBoolean(false), retention),
              200);
        }
        case "failed" -> reply(req, operator.resolveFailed(id), 200);
        default ->
            error(
                req,
                400,
                "INVALID_BODY",
                "outcome: " + quote(outcome) + " (expected: completed or failed)");
      }
    }

    /**
     * Reads a JSON object body of at most {@link #MAX_BODY} bytes. A larger one (by {@code
     * Content-Length} or while reading) gets 413, and the connection closes once the client has
     * finished sending it ({@link Lingering}), so the client reads the answer instead of a reset.
     */
    private void readBody(HttpServerRequest req, java.util.function.Consumer<JsonNode> then) {
      if (declaredOver(req.getHeader(HttpHeaders.CONTENT_LENGTH))) {
        tooLarge(req);
        return;
      }
      Buffer acc = Buffer.buffer();
      // Over the limit, tooLarge hands the request to Lingering, whose handlers replace these.
      req.handler(
          b -> {
            if (acc.length() + b.length() > MAX_BODY) {
              tooLarge(req);
              return;
            }
            acc.appendBuffer(b);
          });
      req.endHandler(
          v -> {
            if (req.response().ended()) {
              return;
            }
            try {
              JsonNode n = JSON.readTree(acc.getBytes());
              if (n == null || !n.isObject()) {
                error(req, 400, "INVALID_BODY", "expected a JSON object");
                return;
              }
              then.accept(n);
            } catch (java.io.IOException e) {
              error(req, 400, "INVALID_BODY", "malformed JSON");
            }
          });
    }

    private static boolean declaredOver(String contentLength) {
      if (contentLength == null) {
        return false;
      }
      try {
        return Long.parseLong(contentLength.trim()) > MAX_BODY;
      } catch (NumberFormatException e) {
        return false; // the HTTP codec refuses a malformed Content-Length before this runs
      }
    }

    private static void tooLarge(HttpServerRequest req) {
      req.response().putHeader(HttpHeaders.CONNECTION, "close");
      Lingering.drainThenClose(
          req, error(req, 413, "PAYLOAD_TOO_LARGE", "body over " + MAX_BODY + " bytes"));
    }

    private void reply(HttpServerRequest req, CompletionStage<Execution> stage, int status) {
      Future.fromCompletionStage(stage, vertx.getOrCreateContext())
          .onSuccess(
              e -> {
                if (e == null) {
                  error(req, 404, "NOT_FOUND", "no such execution");
                } else {
                  json(req, status, ActivityRecord.of(e));
                }
              })
          .onFailure(
              err -> {
                Throwable c =
                    err.getCause() != null && !(err instanceof Operator.OperatorException)
                        ? err.getCause()
                        : err;
                if (c instanceof Operator.OperatorException oe) {
                  int code = oe.refusal() == Operator.Refusal.NOT_FOUND ? 404 : 409;
                  error(req, code, oe.refusal().name(), oe.getMessage());
                } else {
                  error(req, 503, "STORE_UNAVAILABLE", "the store cannot record this now; retry");
                }
              });
    }

    private static ObjectNode status(String s) {
      ObjectNode o = JsonNodeFactory.instance.objectNode();
      o.put("status", s);
      return o;
    }

    private static String quote(String s) {
      String cut = s.length() > 40 ? s.substring(0, 40) + "…" : s;
      return '"' + cut.replaceAll("[^\\x20-\\x7e]", "?") + '"';
    }

    /** Writes the answer; the future completes once it was written (or could not be). */
    private static Future<Void> json(HttpServerRequest req, int status, JsonNode body) {
      if (req.response().ended()) {
        return Future.succeededFuture();
      }
      try {
        return req.response()
            .setStatusCode(status)
            .putHeader("Content-Type", "application/json")
            .end(Buffer.buffer(JSON.writeValueAsBytes(body)));
      } catch (java.io.IOException e) {
        return req.response().setStatusCode(500).end();
      }
    }

    private static Future<Void> error(
        HttpServerRequest req, int status, String code, String message) {
      ObjectNode o = JsonNodeFactory.instance.objectNode();
      ObjectNode e = o.putObject("error");
      e.put("code", code);
      e.put("message", message);
      return json(req, status, o);
    }
  }

  @Override
  public String toString() {
    return "AdminServer[" + server.actualPort() + "]";
  }
}
