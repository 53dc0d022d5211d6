package dev.tally.filter;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A hand-written, stateless JSON-RPC servlet that answers with {@code application/json}, either
 * synchronously or from another thread after {@code startAsync()}. Tools: {@code write} (counts
 * side effects), {@code confirm_delete} (MRTR: asks for input first), {@code echo} (read-only),
 * {@code abortable} (waits until a {@code notifications/cancelled} names its request, then ends its
 * {@code text/event-stream} answer without a JSON-RPC response, as an SDK server does for a request
 * its client cancelled).
 */
final class MiniMcpServlet extends HttpServlet {
  private static final long serialVersionUID = 1L;
  private static final ObjectMapper JSON = new ObjectMapper();

  final transient AtomicInteger requests = new AtomicInteger();
  final transient AtomicInteger writes = new AtomicInteger();
  final transient ConcurrentLinkedQueue<String> executionIds = new ConcurrentLinkedQueue<>();
  final transient ConcurrentLinkedQueue<String> rawBodies = new ConcurrentLinkedQueue<>();

  /**
   * What was wrong with each 2026-07-28 {@code tools/call}'s mirrored headers, checked here with
   * this servlet's own decoding (such calls are answered HTTP 400, -32020).
   */
  final transient ConcurrentLinkedQueue<String> headerMismatches = new ConcurrentLinkedQueue<>();

  /** The decoded {@code Mcp-Param-Region} of each 2026-07-28 {@code write} call. */
  final transient ConcurrentLinkedQueue<String> regions = new ConcurrentLinkedQueue<>();

  private final boolean async;
  private final transient ExecutorService pool = Executors.newFixedThreadPool(2);

  /** {@code abortable} calls waiting for their cancellation, by JSON-RPC id (as text). */
  private final transient Map<String, CompletableFuture<Void>> abortable =
      new ConcurrentHashMap<>();

  MiniMcpServlet(boolean async) {
    this.async = async;
  }

  @Override
  protected void doGet(HttpServletRequest req, HttpServletResponse res) throws IOException {
    requests.incrementAndGet();
    res.setStatus(405);
  }

  @Override
  protected void doPost(HttpServletRequest req, HttpServletResponse res) throws IOException {
    requests.incrementAndGet();
    String raw = req.getReader().lines().reduce("", (a, b) -> a + b);
    rawBodies.add(raw);
    JsonNode msg = JSON.readTree(raw);
    if ("notifications/cancelled".equals(msg.path("method").asText())) {
      String id = msg.path("params").path("requestId").asText();
      abortable.computeIfAbsent(id, k -> new CompletableFuture<>()).complete(null);
      res.setStatus(202);
      return;
    }
    if ("abortable".equals(msg.path("params").path("name").asText())) {
      abort(msg, req, res);
      return;
    }
    String bad = mismatch(req, msg);
    if (bad != null) {
      headerMismatches.add(bad);
      res.setStatus(400);
      res.setContentType("application/json");
      res.getOutputStream()
          .write(
              ("{\"jsonrpc\":\"2.0\",\"id\":"
                      + msg.path("id")
                      + ",\"error\":{\"code\":-32020,\"message\":\"Header mismatch: "
                      + bad
                      + "\"}}")
                  .getBytes(StandardCharsets.UTF_8));
      return;
    }
    if (!async) {
      answer(msg, res);
      return;
    }
    AsyncContext ac = req.startAsync();
    pool.execute(
        () -> {
          try {
            answer(msg, (HttpServletResponse) ac.getResponse());
          } catch (IOException e) {
            // the client is gone; the filter sees the failed write
          } finally {
            ac.complete();
          }
        });
  }

  /**
   * For a 2026-07-28 {@code tools/call}: what disagrees with the body among {@code Mcp-Method},
   * {@code Mcp-Name} and ({@code write}) {@code Mcp-Param-Region}; null when all agree.
   */
  private String mismatch(HttpServletRequest req, JsonNode msg) {
    if (!"tools/call".equals(msg.path("method").asText())
        || !"2026-07-28".equals(req.getHeader("MCP-Protocol-Version"))) {
      return null;
    }
    JsonNode params = msg.path("params");
    if (!"tools/call".equals(req.getHeader("Mcp-Method"))) {
      return "Mcp-Method";
    }
    if (!params.path("name").asText().equals(decoded(req.getHeader("Mcp-Name")))) {
      return "Mcp-Name";
    }
    JsonNode region = params.path("arguments").path("region");
    if ("write".equals(params.path("name").asText()) && region.isTextual()) {
      String h = decoded(req.getHeader("Mcp-Param-Region"));
      if (!region.asText().equals(h)) {
        return h == null ? "Mcp-Param-Region missing" : "Mcp-Param-Region";
      }
      regions.add(h);
    }
    return null;
  }

  private static String decoded(String h) {
    if (h != null && h.startsWith("=?base64?") && h.endsWith("?=") && h.length() >= 11) {
      return new String(
          java.util.Base64.getDecoder().decode(h.substring(9, h.length() - 2)),
          StandardCharsets.UTF_8);
    }
    return h;
  }

  /** Holds the call until its cancellation, then ends the stream with no answer for it. */
  private void abort(JsonNode msg, HttpServletRequest req, HttpServletResponse res)
      throws IOException {
    executionIds.add(msg.path("params").path("_meta").path("dev.tally/executionId").asText(""));
    CompletableFuture<Void> cancelled =
        abortable.computeIfAbsent(msg.path("id").asText(), k -> new CompletableFuture<>());
    if (!async) {
      try {
        cancelled.get(20, TimeUnit.SECONDS);
      } catch (InterruptedException | ExecutionException | TimeoutException e) {
        throw new IOException("abortable: never cancelled", e);
      }
      endWithoutAnswer(res);
      return;
    }
    AsyncContext ac = req.startAsync();
    ac.setTimeout(30_000);
    cancelled.thenRun(
        () -> {
          try {
            endWithoutAnswer((HttpServletResponse) ac.getResponse());
          } catch (IOException e) {
            // the client is gone
          } finally {
            ac.complete();
          }
        });
  }

  private static void endWithoutAnswer(HttpServletResponse res) throws IOException {
    res.setStatus(200);
    res.setContentType("text/event-stream");
    res.getOutputStream().flush();
  }

  private void answer(JsonNode msg, HttpServletResponse res) throws IOException {
    if (!msg.has("id")) {
      res.setStatus(202);
      return;
    }
    ObjectNode out = JSON.createObjectNode();
    out.put("jsonrpc", "2.0");
    out.set("id", msg.get("id"));
    String method = msg.path("method").asText();
    JsonNode params = msg.path("params");
    switch (method) {
      case "tools/list" -> {
        var tools = out.putObject("result").putArray("tools");
        ObjectNode w = tools.addObject().put("name", "write");
        ObjectNode props = w.putObject("inputSchema").put("type", "object").putObject("properties");
        props.putObject("message").put("type", "string");
        props.putObject("region").put("type", "string").put("x-mcp-header", "Region");
        tools.addObject().put("name", "confirm_delete");
        tools.addObject().put("name", "echo").putObject("annotations").put("readOnlyHint", true);
      }
      case "tools/call" -> {
        String tool = params.path("name").asText();
        executionIds.add(params.path("_meta").path("dev.tally/executionId").asText(""));
        ObjectNode result = out.putObject("result");
        if (tool.equals("confirm_delete") && !params.has("inputResponses")) {
          result.put("resultType", "input_required");
          result.putObject("inputRequests").putObject("ok").put("method", "elicitation/create");
          result.put("requestState", "state-1");
        } else {
          int n = tool.equals("echo") ? 0 : writes.incrementAndGet();
          result
              .putArray("content")
              .addObject()
              .put("type", "text")
              .put("text", tool + " done #" + n);
        }
      }
      default -> out.putObject("result");
    }
    byte[] body = JSON.writeValueAsBytes(out);
    res.setStatus(200);
    res.setContentType("application/json");
    res.setCharacterEncoding(StandardCharsets.UTF_8.name());
    OutputStream os = res.getOutputStream();
    os.write(body);
    os.flush();
  }

  @Override
  public void destroy() {
    pool.shutdownNow();
  }
}
