package dev.tally.sidecar.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import java.io.IOException;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A small MCP server (Streamable HTTP, JSON responses, protocol 2025-11-25) for {@code tally demo}:
 * one write tool, {@code create_ticket}, that counts its side effects, and one read-only tool,
 * {@code search_tickets}. Not a general MCP implementation: the real SDK servers are used in tests.
 */
public final class DemoMcpServer {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final JsonNodeFactory F = JsonNodeFactory.instance;

  private final HttpServer server;
  private final AtomicInteger sideEffects;
  private final AtomicReference<String> lastExecutionId;
  private final AtomicReference<String> lastIdempotencyKey;

  private DemoMcpServer(
      HttpServer server,
      AtomicInteger sideEffects,
      AtomicReference<String> lastExecutionId,
      AtomicReference<String> lastIdempotencyKey) {
    this.server = server;
    this.sideEffects = sideEffects;
    this.lastExecutionId = lastExecutionId;
    this.lastIdempotencyKey = lastIdempotencyKey;
  }

  /** Starts on 127.0.0.1 (port 0 picks a free one); {@code work} is how long a ticket takes. */
  public static Future<DemoMcpServer> start(Vertx vertx, int port, Duration work) {
    AtomicInteger count = new AtomicInteger();
    AtomicReference<String> lastId = new AtomicReference<>();
    AtomicReference<String> lastKey = new AtomicReference<>();
    return vertx
        .createHttpServer()
        .requestHandler(req -> handle(vertx, req, work, count, lastId, lastKey))
        .listen(port, "127.0.0.1")
        .map(s -> new DemoMcpServer(s, count, lastId, lastKey));
  }

  public int port() {
    return server.actualPort();
  }

  /** How many tickets were created (side effects performed). */
  public int sideEffects() {
    return sideEffects.get();
  }

  /** The {@code dev.tally/executionId} of the last write call received. */
  public String lastExecutionId() {
    return lastExecutionId.get();
  }

  /** The {@code Idempotency-Key} header of the last write call received. */
  public String lastIdempotencyKey() {
    return lastIdempotencyKey.get();
  }

  public Future<Void> close() {
    return server.close();
  }

  private static void handle(
      Vertx vertx,
      HttpServerRequest req,
      Duration work,
      AtomicInteger count,
      AtomicReference<String> lastId,
      AtomicReference<String> lastKey) {
    if (req.method() != HttpMethod.POST) {
      req.response().setStatusCode(405).end();
      return;
    }
    req.body()
        .onSuccess(
            body -> {
              JsonNode msg;
              try {
                msg = JSON.readTree(body.getBytes());
              } catch (IOException e) {
                reply(req, 400, error(null, -32700, "parse error"));
                return;
              }
              String method = msg.path("method").asText("");
              JsonNode id = msg.get("id");
              switch (method) {
                case "initialize" -> {
                  ObjectNode r = F.objectNode();
                  r.put("protocolVersion", "2025-11-25");
                  r.putObject("capabilities").putObject("tools");
                  ObjectNode info = r.putObject("serverInfo");
                  info.put("name", "tally-demo-tickets");
                  info.put("version", "1.0");
                  req.response().putHeader("Mcp-Session-Id", UUID.randomUUID().toString());
                  reply(req, 200, result(id, r));
                }
                case "notifications/initialized" -> req.response().setStatusCode(202).end();
                case "tools/list" -> reply(req, 200, result(id, tools()));
                case "tools/call" -> call(vertx, req, msg, id, work, count, lastId, lastKey);
                default -> reply(req, 200, error(id, -32601, "method not found: " + method));
              }
            });
  }

  private static void call(
      Vertx vertx,
      HttpServerRequest req,
      JsonNode msg,
      JsonNode id,
      Duration work,
      AtomicInteger count,
      AtomicReference<String> lastId,
      AtomicReference<String> lastKey) {
    JsonNode params = msg.path("params");
    String tool = params.path("name").asText("");
    if (tool.equals("search_tickets")) {
      reply(req, 200, result(id, text("0 tickets match", F.objectNode())));
      return;
    }
    if (!tool.equals("create_ticket") && !tool.equals("close_ticket")) {
      reply(req, 200, error(id, -32602, "unknown tool: " + tool));
      return;
    }
    String executionId = params.path("_meta").path("dev.tally/executionId").asText(null);
    lastId.set(executionId);
    lastKey.set(req.getHeader("Idempotency-Key"));
    String title = params.path("arguments").path("title").asText("untitled");
    // The side effect happens now; the answer follows after the work is done.
    int n = count.incrementAndGet();
    vertx.setTimer(
        Math.max(1, work.toMillis()),
        t -> {
          ObjectNode structured = F.objectNode();
          structured.put("ticket", "T-" + n);
          structured.put("title", title);
          if (executionId != null) {
            structured.put("executionId", executionId);
          }
          reply(
              req,
              200,
              result(
                  id,
                  text(
                      tool.equals("close_ticket")
                          ? "closed ticket " + params.path("arguments").path("ticket").asText("?")
                          : "created ticket T-" + n,
                      structured)));
        });
  }

  private static ObjectNode tools() {
    ObjectNode r = F.objectNode();
    ArrayNode tools = r.putArray("tools");
    ObjectNode create = tools.addObject();
    create.put("name", "create_ticket");
    create.put("description", "Creates a support ticket (a side effect: never do it twice).");
    ObjectNode schema = create.putObject("inputSchema");
    schema.put("type", "object");
    schema.putObject("properties").putObject("title").put("type", "string");
    ObjectNode close = tools.addObject();
    close.put("name", "close_ticket");
    close.put("description", "Closes a ticket (a side effect a person must confirm).");
    ObjectNode closeSchema = close.putObject("inputSchema");
    closeSchema.put("type", "object");
    closeSchema.putObject("properties").putObject("ticket").put("type", "string");
    ObjectNode search = tools.addObject();
    search.put("name", "search_tickets");
    search.put("description", "Searches tickets.");
    search.putObject("inputSchema").put("type", "object");
    search.putObject("annotations").put("readOnlyHint", true);
    return r;
  }

  private static ObjectNode text(String text, ObjectNode structured) {
    ObjectNode r = F.objectNode();
    ObjectNode c = r.putArray("content").addObject();
    c.put("type", "text");
    c.put("text", text);
    r.set("structuredContent", structured);
    return r;
  }

  private static ObjectNode result(JsonNode id, JsonNode result) {
    ObjectNode o = F.objectNode();
    o.put("jsonrpc", "2.0");
    o.set("id", id);
    o.set("result", result);
    return o;
  }

  private static ObjectNode error(JsonNode id, int code, String message) {
    ObjectNode o = F.objectNode();
    o.put("jsonrpc", "2.0");
    o.set("id", id == null ? F.nullNode() : id);
    ObjectNode e = o.putObject("error");
    e.put("code", code);
    e.put("message", message);
    return o;
  }

  private static void reply(HttpServerRequest req, int status, ObjectNode body) {
    if (req.response().closed() || req.response().ended()) {
      return;
    }
    try {
      req.response()
          .setStatusCode(status)
          .putHeader("Content-Type", "application/json")
          .end(Buffer.buffer(JSON.writeValueAsBytes(body)));
    } catch (IOException e) {
      req.response().setStatusCode(500).end();
    }
  }
}
