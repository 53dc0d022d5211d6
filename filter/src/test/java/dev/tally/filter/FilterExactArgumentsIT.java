package dev.tally.filter;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tally.core.store.MemoryExecutionStore;
import dev.tally.core.testing.ExactArgumentsSuite;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.util.EnumSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The exact-arguments suite against the filter in Jetty in front of a raw servlet that records each
 * {@code tools/call} body as {@code getInputStream()} gave it and answers it with a text result
 * naming the run.
 */
class FilterExactArgumentsIT extends ExactArgumentsSuite {
  private static final BlockingQueue<byte[]> CALLS = new LinkedBlockingQueue<>();
  private static MemoryExecutionStore store;
  private static TallyFilter filter;
  private static Server server;
  private static URI endpoint;

  @BeforeAll
  static void start() throws Exception {
    store = MemoryExecutionStore.create();
    filter =
        TallyFilter.builder()
            .settings(FilterSettings.defaults())
            .store(store)
            .keys(SdkApp.keys())
            .build();
    server = new Server();
    ServerConnector connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    server.addConnector(connector);
    ServletContextHandler ctx = new ServletContextHandler();
    ctx.setContextPath("/");
    ctx.addServlet(new ServletHolder(new RecordingServlet()), "/mcp");
    ctx.addFilter(new FilterHolder(filter), "/mcp", EnumSet.of(DispatcherType.REQUEST));
    server.setHandler(ctx);
    server.start();
    endpoint = URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/mcp");
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      server.stop();
    } finally {
      filter.destroy();
      store.close();
    }
  }

  /** Records the raw body of every {@code tools/call} and answers it. */
  static final class RecordingServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;
    private static final ObjectMapper JSON = new ObjectMapper();
    private final transient AtomicInteger runs = new AtomicInteger();

    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse res) throws IOException {
      byte[] raw = req.getInputStream().readAllBytes();
      JsonNode msg = JSON.readTree(raw);
      if (!msg.has("id")) {
        res.setStatus(202);
        return;
      }
      ObjectNode out = JSON.createObjectNode().put("jsonrpc", "2.0");
      out.set("id", msg.get("id"));
      ObjectNode result = out.putObject("result");
      if ("tools/call".equals(msg.path("method").asText())) {
        CALLS.add(raw);
        result
            .putArray("content")
            .addObject()
            .put("type", "text")
            .put("text", "run #" + runs.incrementAndGet());
      }
      res.setStatus(200);
      res.setContentType("application/json");
      res.getOutputStream().write(JSON.writeValueAsBytes(out));
    }
  }

  @Override
  protected URI endpoint() {
    return endpoint;
  }

  @Override
  protected BlockingQueue<byte[]> upstreamCalls() {
    return CALLS;
  }

  @Override
  protected String writeTool() {
    return "transfer";
  }
}
