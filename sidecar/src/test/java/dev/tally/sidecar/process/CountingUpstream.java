package dev.tally.sidecar.process;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A counting MCP server in the test JVM (Streamable HTTP, JSON answers) with two write tools: an
 * irreversible one, where every call it receives is a side effect, and a keyed one, which honours
 * {@code Idempotency-Key} like a payment API: a repeated key returns the first answer and does
 * nothing. Each call's first receipt can be scripted to be answered at once, after a delay, or held
 * until released. Calls are identified by their {@code title} argument.
 */
final class CountingUpstream {
  static final String IRREVERSIBLE = "create_ticket";
  static final String KEYED = "keyed_ticket";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final JsonNodeFactory F = JsonNodeFactory.instance;

  /**
   * One {@code tools/call} as received, at {@code atNanos} ({@link System#nanoTime()}), with the
   * {@code Authorization} header it carried (or null).
   */
  record Receipt(
      String tool,
      String title,
      String idempotencyKey,
      String executionId,
      long atNanos,
      String authorization) {}

  /**
   * What the first receipt of a title gets; later receipts (re-dispatches) are answered at once.
   */
  record Script(boolean hold, Duration delay, boolean reset) {
    static final Script NOW = new Script(false, Duration.ZERO, false);
    static final Script HOLD = new Script(true, Duration.ZERO, false);

    /** The call is performed (a side effect), then its connection closes without an answer. */
    static final Script RESET = new Script(false, Duration.ZERO, true);

    static Script after(Duration d) {
      return new Script(false, d, false);
    }
  }

  private final Vertx vertx;
  private final HttpServer server;
  private final AtomicBoolean reachable = new AtomicBoolean(true);
  private final AtomicInteger tickets = new AtomicInteger();
  private volatile String padding = "";
  private volatile int progressEvents;
  private final AtomicInteger openConnections = new AtomicInteger();
  private final Map<String, List<Receipt>> receipts = new ConcurrentHashMap<>();
  private final Map<String, Script> scripts = new ConcurrentHashMap<>();
  private final Map<String, CompletableFuture<Receipt>> received = new ConcurrentHashMap<>();
  private final Map<String, CompletableFuture<Long>> answered = new ConcurrentHashMap<>();
  private final Map<String, CompletableFuture<Void>> releases = new ConcurrentHashMap<>();

  /** Ticket issued per execution id (the keyed tool answers a repeated key with it). */
  private final Map<String, String> ticketByKey = new ConcurrentHashMap<>();

  private CountingUpstream(Vertx vertx) throws Exception {
    this.vertx = vertx;
    this.server =
        vertx
            .createHttpServer()
            .connectionHandler(
                c -> {
                  openConnections.incrementAndGet();
                  c.closeHandler(v -> openConnections.decrementAndGet());
                })
            .requestHandler(this::handle)
            .listen(0, "127.0.0.1")
            .toCompletionStage()
            .toCompletableFuture()
            .get(20, TimeUnit.SECONDS);
  }

  static CountingUpstream start() throws Exception {
    Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1).setWorkerPoolSize(1));
    try {
      return new CountingUpstream(vertx);
    } catch (Exception | Error e) {
      vertx.close();
      throw e;
    }
  }

  String url() {
    return "http://127.0.0.1:" + server.actualPort() + "/mcp";
  }

  /** While false, every request's connection is closed without an answer (as if not reachable). */
  void reachable(boolean r) {
    reachable.set(r);
  }

  /** Makes every result carry about {@code bytes} more bytes (a larger journal to compact). */
  void padResults(int bytes) {
    padding = "x".repeat(bytes);
  }

  /**
   * While above 0, every call is answered as an SSE stream: this many {@code
   * notifications/progress} events of about 64 KiB each, then the result event.
   */
  void streamProgress(int events) {
    progressEvents = events;
  }

  void script(String title, Script s) {
    scripts.put(title, s);
  }

  /** Completes when the first call with this title arrives. */
  CompletableFuture<Receipt> received(String title) {
    return received.computeIfAbsent(title, t -> new CompletableFuture<>());
  }

  /**
   * Completes with {@link System#nanoTime()} once the answer to the first call with this title was
   * written to the socket (or found its connection gone).
   */
  CompletableFuture<Long> answered(String title) {
    return answered.computeIfAbsent(title, t -> new CompletableFuture<>());
  }

  /** Lets a held call answer (a no-op if its connection is gone). */
  void release(String title) {
    releases.computeIfAbsent(title, t -> new CompletableFuture<>()).complete(null);
  }

  List<Receipt> receipts(String title) {
    List<Receipt> r = receipts.get(title);
    if (r == null) {
      return List.of();
    }
    synchronized (r) {
      return List.copyOf(r);
    }
  }

  /**
   * Side effects performed for a title: every receipt for the irreversible tool, every distinct
   * idempotency key for the keyed tool.
   */
  int sideEffects(String title) {
    List<Receipt> r = receipts(title);
    if (r.isEmpty()) {
      return 0;
    }
    return r.get(0).tool().equals(KEYED)
        ? (int) r.stream().map(Receipt::idempotencyKey).distinct().count()
        : r.size();
  }

  Set<String> titles() {
    return Set.copyOf(receipts.keySet());
  }

  /** The ticket issued to the execution with this id, or null. */
  String ticketOf(String executionId) {
    return ticketByKey.get(executionId);
  }

  int openConnections() {
    return openConnections.get();
  }

  /** Waits until no connection is open, i.e. whatever a dead client sent has been read. */
  void awaitNoConnections(Duration max) throws InterruptedException {
    Poll.until(max, () -> openConnections.get() == 0, () -> openConnections + " open connections");
  }

  private void handle(HttpServerRequest req) {
    if (!reachable.get()) {
      req.connection().close();
      return;
    }
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
                reply(req, error(null, -32700, "parse error"));
                return;
              }
              JsonNode id = msg.get("id");
              switch (msg.path("method").asText("")) {
                case "initialize" -> {
                  ObjectNode r = F.objectNode();
                  r.put("protocolVersion", "2025-11-25");
                  r.putObject("capabilities").putObject("tools");
                  r.putObject("serverInfo").put("name", "counting-upstream").put("version", "1");
                  req.response().putHeader("Mcp-Session-Id", "counting-" + UUID.randomUUID());
                  reply(req, result(id, r));
                }
                case "notifications/initialized" -> req.response().setStatusCode(202).end();
                case "tools/list" -> reply(req, result(id, tools()));
                case "tools/call" -> call(req, msg, id);
                default -> reply(req, error(id, -32601, "method not found"));
              }
            });
  }

  private void call(HttpServerRequest req, JsonNode msg, JsonNode id) {
    JsonNode params = msg.path("params");
    String tool = params.path("name").asText("");
    if (tool.equals(STATUS)) {
      status(req, params, id);
      return;
    }
    if (!tool.equals(IRREVERSIBLE) && !tool.equals(KEYED)) {
      reply(req, error(id, -32602, "unknown tool"));
      return;
    }
    String title = params.path("arguments").path("title").asText("");
    String key = req.getHeader("Idempotency-Key");
    Receipt receipt =
        new Receipt(
            tool,
            title,
            key,
            params.path("_meta").path("dev.tally/executionId").asText(null),
            System.nanoTime(),
            req.getHeader("Authorization"));
    List<Receipt> list = receipts.computeIfAbsent(title, t -> new ArrayList<>());
    boolean first;
    synchronized (list) {
      first = list.isEmpty();
      list.add(receipt);
    }
    String ticket;
    if (tool.equals(KEYED) && key != null && ticketByKey.containsKey(key)) {
      ticket = ticketByKey.get(key);
    } else {
      ticket = "T-" + tickets.incrementAndGet();
      if (key != null) {
        ticketByKey.putIfAbsent(key, ticket);
      }
    }
    received(title).complete(receipt);
    Script script = first ? scripts.getOrDefault(title, Script.NOW) : Script.NOW;
    Runnable answer =
        () -> {
          ObjectNode structured = F.objectNode();
          structured.put("ticket", ticket);
          structured.put("title", title);
          if (!padding.isEmpty()) {
            structured.put("padding", padding);
          }
          ObjectNode r = F.objectNode();
          r.putArray("content")
              .addObject()
              .put("type", "text")
              .put("text", "created ticket " + ticket);
          r.set("structuredContent", structured);
          CompletableFuture<Long> done = first ? answered(title) : new CompletableFuture<>();
          int events = progressEvents;
          (events > 0 ? replySse(req, result(id, r), events) : reply(req, result(id, r)))
              .whenComplete((v, e) -> done.complete(System.nanoTime()));
        };
    if (script.reset()) {
      answered(title).complete(System.nanoTime());
      req.connection().close();
    } else if (script.hold()) {
      releases
          .computeIfAbsent(title, t -> new CompletableFuture<>())
          .thenRun(() -> vertx.runOnContext(v -> answer.run()));
    } else if (script.delay().isZero()) {
      answer.run();
    } else {
      vertx.setTimer(script.delay().toMillis(), t -> answer.run());
    }
  }

  /**
   * The status tool (issue 18): {@code {"executionId"}} → {@code status: completed} with the ticket
   * a call under that execution id created, or {@code not_found}. Counts its lookups.
   */
  private void status(HttpServerRequest req, JsonNode params, JsonNode id) {
    statusLookups.incrementAndGet();
    statusArguments.add(params.path("arguments").deepCopy());
    // The execution id under the default name, or under "operation" with the call's title mapped
    // in as "about" (which must then match).
    JsonNode args = params.path("arguments");
    String executionId =
        args.path(args.has("executionId") ? "executionId" : "operation").asText("");
    String about = args.path("about").asText(null);
    ObjectNode structured = F.objectNode();
    Receipt found = null;
    for (List<Receipt> list : receipts.values()) {
      synchronized (list) {
        for (Receipt r : list) {
          if (executionId.equals(r.executionId())
              && !r.tool().equals(STATUS)
              && (about == null || about.equals(r.title()))) {
            found = r;
          }
        }
      }
    }
    if (found == null) {
      structured.put("status", "not_found");
    } else {
      structured.put("status", "completed");
      ObjectNode result = structured.putObject("result");
      result
          .putArray("content")
          .addObject()
          .put("type", "text")
          .put("text", "found ticket for " + found.title());
    }
    ObjectNode r = F.objectNode();
    r.putArray("content")
        .addObject()
        .put("type", "text")
        .put("text", structured.path("status").asText());
    r.set("structuredContent", structured);
    reply(req, result(id, r));
  }

  /** The arguments of each status lookup, in order. */
  final List<JsonNode> statusArguments = new java.util.concurrent.CopyOnWriteArrayList<>();

  /** How many times the status tool was asked. */
  final java.util.concurrent.atomic.AtomicInteger statusLookups =
      new java.util.concurrent.atomic.AtomicInteger();

  static final String STATUS = "ticket_status";

  private static ObjectNode tools() {
    ObjectNode r = F.objectNode();
    ArrayNode tools = r.putArray("tools");
    for (String name : List.of(IRREVERSIBLE, KEYED)) {
      ObjectNode t = tools.addObject();
      t.put("name", name);
      t.putObject("inputSchema").put("type", "object");
    }
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
    o.putObject("error").put("code", code).put("message", message);
    return o;
  }

  /** Writes the answer; completes once it is on the socket, or at once if it cannot be written. */
  private static CompletableFuture<Void> reply(HttpServerRequest req, ObjectNode body) {
    if (req.response().closed() || req.response().ended()) {
      return CompletableFuture.completedFuture(null);
    }
    byte[] bytes;
    try {
      bytes = JSON.writeValueAsBytes(body);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    return req.response()
        .putHeader("Content-Type", "application/json")
        .end(Buffer.buffer(bytes))
        .toCompletionStage()
        .toCompletableFuture()
        .handle((v, e) -> (Void) null);
  }

  /**
   * {@code events} progress notifications of about 64 KiB, then {@code body}, as one SSE stream.
   */
  private static CompletableFuture<Void> replySse(
      HttpServerRequest req, ObjectNode body, int events) {
    if (req.response().closed() || req.response().ended()) {
      return CompletableFuture.completedFuture(null);
    }
    io.vertx.core.http.HttpServerResponse resp =
        req.response().setChunked(true).putHeader("Content-Type", "text/event-stream");
    String pad = "p".repeat(64 * 1024);
    try {
      for (int i = 0; i < events; i++) {
        ObjectNode n = F.objectNode().put("jsonrpc", "2.0").put("method", "notifications/progress");
        n.putObject("params").put("progressToken", "t").put("progress", i).put("message", pad);
        resp.write("event: message\ndata: " + JSON.writeValueAsString(n) + "\n\n");
      }
      return resp.end("event: message\ndata: " + JSON.writeValueAsString(body) + "\n\n")
          .toCompletionStage()
          .toCompletableFuture()
          .handle((v, e) -> (Void) null);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  void close() throws Exception {
    releases.values().forEach(f -> f.complete(null));
    try {
      server.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }
}
