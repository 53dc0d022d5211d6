package dev.tally.sidecar.it;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A 2025-11-25 MCP server (sessions, JSON answers) whose tool list a test changes while it runs,
 * for the tool-catalogue tests: it counts every {@code tools/list} (with the client name of the
 * session that sent it) and every {@code tools/call} per tool. Optionally it refuses every request
 * without the expected {@code Authorization} (HTTP 401), as a server behind authentication does.
 * Calls of {@value #ANNOUNCING} answer on SSE with a {@code notifications/tools/list_changed}
 * before their result.
 */
public final class CatalogueUpstream implements AutoCloseable {
  /** A tool whose answer announces that the tool list changed. */
  public static final String ANNOUNCING = "announce";

  private final Vertx vertx;
  private final HttpServer server;
  private final String authorization;
  private volatile List<JsonObject> tools = List.of();
  private final AtomicInteger listings = new AtomicInteger();
  private final List<String> listedBy = new CopyOnWriteArrayList<>();
  private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
  private final Map<String, String> clientOfSession = new ConcurrentHashMap<>();
  private final AtomicInteger refused = new AtomicInteger();

  private CatalogueUpstream(Vertx vertx, String authorization) throws Exception {
    this.vertx = vertx;
    this.authorization = authorization;
    this.server =
        vertx
            .createHttpServer()
            .requestHandler(this::handle)
            .listen(0, "127.0.0.1")
            .toCompletionStage()
            .toCompletableFuture()
            .get(20, TimeUnit.SECONDS);
  }

  /** A server open to anyone. */
  public static CatalogueUpstream open() throws Exception {
    return start(null);
  }

  /** A server that answers 401 to any request without {@code Authorization: <authorization>}. */
  public static CatalogueUpstream withAuthorization(String authorization) throws Exception {
    return start(authorization);
  }

  private static CatalogueUpstream start(String authorization) throws Exception {
    Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1).setWorkerPoolSize(1));
    try {
      return new CatalogueUpstream(vertx, authorization);
    } catch (Exception | Error e) {
      vertx.close();
      throw e;
    }
  }

  public String url() {
    return "http://127.0.0.1:" + server.actualPort() + "/mcp";
  }

  /** Replaces the tool list: each entry {@code name} or {@code name:readOnly}. */
  public void tools(String... specs) {
    List<JsonObject> out = new java.util.ArrayList<>();
    for (String s : specs) {
      String[] p = s.split(":");
      JsonObject t =
          new JsonObject()
              .put("name", p[0])
              .put("inputSchema", new JsonObject().put("type", "object"));
      if (p.length > 1 && p[1].equals("readOnly")) {
        t.put("annotations", new JsonObject().put("readOnlyHint", true));
      }
      out.add(t);
    }
    tools = List.copyOf(out);
  }

  /** {@code tools/list} requests answered so far. */
  public int listings() {
    return listings.get();
  }

  /** The {@code clientInfo.name} of the session behind each {@code tools/list}, in order. */
  public List<String> listedBy() {
    return List.copyOf(listedBy);
  }

  /** {@code tools/call} requests of {@code tool} answered so far. */
  public int calls(String tool) {
    AtomicInteger n = calls.get(tool);
    return n == null ? 0 : n.get();
  }

  /** Requests refused for a missing or wrong {@code Authorization}. */
  public int refused() {
    return refused.get();
  }

  private void handle(HttpServerRequest req) {
    if (authorization != null && !authorization.equals(req.getHeader("Authorization"))) {
      refused.incrementAndGet();
      req.response().setStatusCode(401).putHeader("WWW-Authenticate", "Bearer").end();
      return;
    }
    if (req.method() == HttpMethod.DELETE) {
      req.response().setStatusCode(200).end();
      return;
    }
    if (req.method() != HttpMethod.POST) {
      req.response().setStatusCode(405).end();
      return;
    }
    req.body()
        .onSuccess(
            b -> {
              JsonObject msg = b.toJsonObject();
              Object id = msg.getValue("id");
              String session = req.getHeader("Mcp-Session-Id");
              switch (msg.getString("method", "")) {
                case "initialize" -> {
                  String s = "cat-" + UUID.randomUUID();
                  clientOfSession.put(
                      s,
                      msg.getJsonObject("params", new JsonObject())
                          .getJsonObject("clientInfo", new JsonObject())
                          .getString("name", "?"));
                  req.response().putHeader("Mcp-Session-Id", s);
                  answer(
                      req,
                      id,
                      new JsonObject()
                          .put("protocolVersion", "2025-11-25")
                          .put(
                              "capabilities",
                              new JsonObject()
                                  .put("tools", new JsonObject().put("listChanged", true)))
                          .put(
                              "serverInfo",
                              new JsonObject().put("name", "catalogue").put("version", "1")));
                }
                case "notifications/initialized" -> req.response().setStatusCode(202).end();
                case "tools/list" -> {
                  listings.incrementAndGet();
                  listedBy.add(session == null ? "?" : clientOfSession.getOrDefault(session, "?"));
                  answer(req, id, new JsonObject().put("tools", new JsonArray(tools)));
                }
                case "tools/call" -> call(req, msg, id);
                default -> req.response().setStatusCode(202).end();
              }
            });
  }

  private void call(HttpServerRequest req, JsonObject msg, Object id) {
    String tool = msg.getJsonObject("params", new JsonObject()).getString("name", "");
    int n = calls.computeIfAbsent(tool, t -> new AtomicInteger()).incrementAndGet();
    JsonObject result =
        new JsonObject()
            .put(
                "content",
                new JsonArray()
                    .add(new JsonObject().put("type", "text").put("text", tool + " #" + n)));
    if (!tool.equals(ANNOUNCING)) {
      answer(req, id, result);
      return;
    }
    String changed = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}";
    String response =
        new JsonObject().put("jsonrpc", "2.0").put("id", id).put("result", result).encode();
    req.response()
        .setChunked(true)
        .putHeader("Content-Type", "text/event-stream")
        .write("event: message\ndata: " + changed + "\n\n");
    vertx.setTimer(20, t -> req.response().end("event: message\ndata: " + response + "\n\n"));
  }

  private static void answer(HttpServerRequest req, Object id, JsonObject result) {
    req.response()
        .putHeader("Content-Type", "application/json")
        .end(new JsonObject().put("jsonrpc", "2.0").put("id", id).put("result", result).encode());
  }

  @Override
  public void close() throws java.util.concurrent.ExecutionException, TimeoutException {
    try {
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while stopping the upstream", e);
    }
  }
}
