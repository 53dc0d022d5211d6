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
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A hand-written, stateless JSON-RPC servlet that answers with {@code application/json}, either
 * synchronously or from another thread after {@code startAsync()}. Tools: {@code write} (counts
 * side effects), {@code confirm_delete} (MRTR: asks for input first), {@code echo} (read-only).
 */
final class MiniMcpServlet extends HttpServlet {
  private static final long serialVersionUID = 1L;
  private static final ObjectMapper JSON = new ObjectMapper();

  final transient AtomicInteger requests = new AtomicInteger();
  final transient AtomicInteger writes = new AtomicInteger();
  final transient ConcurrentLinkedQueue<String> executionIds = new ConcurrentLinkedQueue<>();
  final transient ConcurrentLinkedQueue<String> rawBodies = new ConcurrentLinkedQueue<>();
  private final boolean async;
  private final transient ExecutorService pool = Executors.newFixedThreadPool(2);

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
