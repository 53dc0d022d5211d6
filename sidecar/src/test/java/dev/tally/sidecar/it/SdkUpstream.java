package dev.tally.sidecar.it;

import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * A real MCP Java SDK server (servlet transport on embedded Jetty) with a side-effect-counting
 * write tool {@code create_ticket} and a read-only tool {@code get_ticket}. A filter records what
 * reached it over HTTP.
 */
final class SdkUpstream implements AutoCloseable {
  final AtomicInteger sideEffects = new AtomicInteger();
  final AtomicInteger readCalls = new AtomicInteger();
  final AtomicInteger posts = new AtomicInteger();
  final List<String> idempotencyKeys = new CopyOnWriteArrayList<>();
  final List<String> traceparents = new CopyOnWriteArrayList<>();
  final List<Object> executionIdsSeenByTool = new CopyOnWriteArrayList<>();
  volatile CountDownLatch hold;
  volatile CountDownLatch entered = new CountDownLatch(1);

  private final Server jetty;
  private final McpSyncServer mcp;
  private final int port;

  SdkUpstream() throws Exception {
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
                      entered.countDown();
                      CountDownLatch h = hold;
                      if (h != null) {
                        holdThroughInterrupts(h);
                      }
                      int n = sideEffects.incrementAndGet();
                      Object meta =
                          req.meta() == null ? null : req.meta().get("dev.tally/executionId");
                      executionIdsSeenByTool.add(String.valueOf(meta));
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
    Filter recorder =
        (request, response, chain) -> {
          HttpServletRequest r = (HttpServletRequest) request;
          if ("POST".equals(r.getMethod())) {
            posts.incrementAndGet();
            String key = r.getHeader("Idempotency-Key");
            if (key != null) {
              idempotencyKeys.add(key);
              traceparents.add(String.valueOf(r.getHeader("traceparent")));
            }
          }
          chain.doFilter(request, response);
        };
    FilterHolder fh = new FilterHolder(recorder);
    fh.setAsyncSupported(true);
    ctx.addFilter(fh, "/*", EnumSet.of(DispatcherType.REQUEST));
    jetty.setHandler(ctx);
    jetty.start();
    port = connector.getLocalPort();
  }

  String url() {
    return "http://127.0.0.1:" + port + "/mcp";
  }

  @Override
  public void close() {
    CountDownLatch h = hold;
    if (h != null) {
      h.countDown();
    }
    mcp.closeGracefully();
    try {
      jetty.stop();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Waits for the test to release the tool. The SDK interrupts a tool whose client went away; a
   * real side effect would carry on, and re-setting the flag would leak it to the next call on the
   * server's pooled thread, so the interrupt is absorbed.
   */
  private static void holdThroughInterrupts(CountDownLatch h) {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      try {
        h.await(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
        return;
      } catch (InterruptedException e) {
        if (System.nanoTime() >= end) {
          return;
        }
      }
    }
  }
}
