package dev.tally.sidecar.replicas;

import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * One MCP Java SDK server (servlet transport on Jetty, port 0) shared by both replicas: {@code
 * create_ticket} counts its side effects and can be held on a latch; {@code get_ticket} is
 * read-only.
 */
final class CountingUpstream {
  /** Tool invocations that started (before the hold). */
  final AtomicInteger entered = new AtomicInteger();

  /** Side effects performed (after the hold). */
  final AtomicInteger sideEffects = new AtomicInteger();

  /** {@code _meta["dev.tally/executionId"]} of each invocation, in order. */
  final List<String> executionIds = new CopyOnWriteArrayList<>();

  final AtomicInteger readCalls = new AtomicInteger();
  volatile CountDownLatch hold;

  private final Server jetty;
  private final McpSyncServer mcp;
  private final int port;

  CountingUpstream() throws Exception {
    HttpServletStreamableServerTransportProvider transport =
        HttpServletStreamableServerTransportProvider.builder().mcpEndpoint("/mcp").build();
    McpSchema.Tool write =
        McpSchema.Tool.builder(
                "create_ticket",
                Map.of("type", "object", "properties", Map.of("title", Map.of("type", "string"))))
            .description("creates a ticket (a side effect)")
            .build();
    McpSchema.Tool read =
        McpSchema.Tool.builder(
                "get_ticket",
                Map.of("type", "object", "properties", Map.of("id", Map.of("type", "string"))))
            .description("reads a ticket")
            .annotations(McpSchema.ToolAnnotations.builder().readOnlyHint(true).build())
            .build();
    mcp =
        McpServer.sync(transport)
            .serverInfo("upstream", "1.0")
            .capabilities(McpSchema.ServerCapabilities.builder().tools(true).build())
            .tools(
                new McpServerFeatures.SyncToolSpecification(
                    write,
                    (exchange, req) -> {
                      Object id =
                          req.meta() == null ? null : req.meta().get("dev.tally/executionId");
                      executionIds.add(String.valueOf(id));
                      entered.incrementAndGet();
                      awaitRelease(hold);
                      int n = sideEffects.incrementAndGet();
                      return McpSchema.CallToolResult.builder()
                          .addTextContent(
                              "ticket T-" + n + " created: " + req.arguments().get("title"))
                          .isError(false)
                          .build();
                    }),
                new McpServerFeatures.SyncToolSpecification(
                    read,
                    (exchange, req) -> {
                      readCalls.incrementAndGet();
                      return McpSchema.CallToolResult.builder()
                          .addTextContent("ticket " + req.arguments().get("id"))
                          .build();
                    }))
            .build();
    jetty = new Server();
    ServerConnector connector = new ServerConnector(jetty);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    jetty.addConnector(connector);
    ServletContextHandler ctx = new ServletContextHandler();
    ServletHolder holder = new ServletHolder(transport);
    holder.setAsyncSupported(true);
    ctx.addServlet(holder, "/*");
    jetty.setHandler(ctx);
    jetty.start();
    port = connector.getLocalPort();
  }

  /**
   * Waits for {@code h} (30 s at most) whatever happens to the caller: the SDK interrupts a tool
   * whose client went away, and a held call must stay held until the test releases it. The
   * interrupt is swallowed on purpose; re-asserting it would leave the flag on the server's pooled
   * thread and make the next test's held call return at once.
   */
  private static void awaitRelease(CountDownLatch h) {
    if (h == null) {
      return;
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (h.getCount() > 0 && System.nanoTime() < deadline) {
      try {
        h.await(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        // Keep holding: see above.
      }
    }
  }

  String url() {
    return "http://127.0.0.1:" + port + "/mcp";
  }

  /** Makes the next {@code create_ticket} calls wait until {@link #release()}. */
  void holdCalls() {
    hold = new CountDownLatch(1);
  }

  void release() {
    CountDownLatch h = hold;
    if (h != null) {
      h.countDown();
    }
    hold = null;
  }

  void reset() {
    release();
    entered.set(0);
    executionIds.clear();
    sideEffects.set(0);
    readCalls.set(0);
  }

  void close() throws Exception {
    release();
    mcp.closeGracefully();
    jetty.stop();
  }
}
