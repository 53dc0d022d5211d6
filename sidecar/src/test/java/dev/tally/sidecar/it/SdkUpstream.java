package dev.tally.sidecar.it;

import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
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
 * A real MCP Java SDK server (servlet transport on embedded Jetty, port 0) with a
 * side-effect-counting write tool {@code create_ticket}, which can be held on a latch, and a
 * read-only tool {@code get_ticket}. A filter records what reached it over HTTP. Shared by the
 * in-JVM sidecar tests and the replica tests.
 */
public final class SdkUpstream implements AutoCloseable {
  /** Side effects performed (after the hold). */
  public final AtomicInteger sideEffects = new AtomicInteger();

  public final AtomicInteger readCalls = new AtomicInteger();
  public final AtomicInteger posts = new AtomicInteger();
  public final List<String> idempotencyKeys = new CopyOnWriteArrayList<>();
  public final List<String> traceparents = new CopyOnWriteArrayList<>();

  /** Every request that reached the upstream over HTTP, in arrival order. */
  public final List<Seen> requests = new CopyOnWriteArrayList<>();

  /**
   * One request as the upstream received it: method, headers (names lower-cased, values in order)
   * and the status its handler had set when it returned (for a streamed answer: its head's status).
   */
  public record Seen(
      String method, Map<String, List<String>> headers, CompletableFuture<Integer> status) {
    /** The values of header {@code name} (any case), empty when absent. */
    public List<String> header(String name) {
      return headers.getOrDefault(name.toLowerCase(Locale.ROOT), List.of());
    }
  }

  /** {@code _meta["dev.tally/executionId"]} of each side effect, in order (after the hold). */
  public final List<Object> executionIdsSeenByTool = new CopyOnWriteArrayList<>();

  /** {@code params._meta.traceparent} of each write-tool invocation as it starts (null: none). */
  public final List<String> metaTraceparents = new CopyOnWriteArrayList<>();

  /** Write-tool invocations that started (before the hold). */
  public final AtomicInteger invocations = new AtomicInteger();

  /**
   * {@code _meta["dev.tally/executionId"]} of each write-tool invocation as it starts, in order.
   */
  public final List<String> startedExecutionIds = new CopyOnWriteArrayList<>();

  public volatile CountDownLatch hold;
  public volatile CountDownLatch entered = new CountDownLatch(1);

  private final Server jetty;
  private final McpSyncServer mcp;
  private final int port;

  public SdkUpstream() throws Exception {
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
                      startedExecutionIds.add(String.valueOf(executionId(req)));
                      metaTraceparents.add(
                          String.valueOf(
                              req.meta() == null ? null : req.meta().get("traceparent")));
                      invocations.incrementAndGet();
                      entered.countDown();
                      CountDownLatch h = hold;
                      if (h != null) {
                        holdThroughInterrupts(h);
                      }
                      int n = sideEffects.incrementAndGet();
                      executionIdsSeenByTool.add(String.valueOf(executionId(req)));
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
          Map<String, List<String>> headers = new LinkedHashMap<>();
          for (String name : Collections.list(r.getHeaderNames())) {
            headers.put(name.toLowerCase(Locale.ROOT), Collections.list(r.getHeaders(name)));
          }
          Seen seen = new Seen(r.getMethod(), Map.copyOf(headers), new CompletableFuture<>());
          requests.add(seen);
          if ("POST".equals(r.getMethod())) {
            posts.incrementAndGet();
            String key = r.getHeader("Idempotency-Key");
            if (key != null) {
              idempotencyKeys.add(key);
              traceparents.add(String.valueOf(r.getHeader("traceparent")));
            }
          }
          try {
            chain.doFilter(request, response);
          } finally {
            seen.status().complete(((HttpServletResponse) response).getStatus());
          }
        };
    FilterHolder fh = new FilterHolder(recorder);
    fh.setAsyncSupported(true);
    ctx.addFilter(fh, "/*", EnumSet.of(DispatcherType.REQUEST));
    jetty.setHandler(ctx);
    jetty.start();
    port = connector.getLocalPort();
  }

  private static Object executionId(McpSchema.CallToolRequest req) {
    return req.meta() == null ? null : req.meta().get("dev.tally/executionId");
  }

  public String url() {
    return "http://127.0.0.1:" + port + "/mcp";
  }

  /**
   * Sends {@code notifications/tools/list_changed} to every session's standalone (GET) stream: a
   * server-initiated message, as a real server sends when its tools change.
   */
  public void notifyToolsListChanged() {
    mcp.notifyToolsListChanged();
  }

  /** Makes the next {@code create_ticket} calls wait until {@link #release()}. */
  public void holdCalls() {
    hold = new CountDownLatch(1);
  }

  /** Lets held calls go on and stops holding new ones. */
  public void release() {
    CountDownLatch h = hold;
    if (h != null) {
      h.countDown();
    }
    hold = null;
  }

  /** Releases held calls and zeroes every counter and list, for the next test. */
  public void reset() {
    release();
    sideEffects.set(0);
    readCalls.set(0);
    posts.set(0);
    idempotencyKeys.clear();
    traceparents.clear();
    requests.clear();
    executionIdsSeenByTool.clear();
    invocations.set(0);
    startedExecutionIds.clear();
    metaTraceparents.clear();
    entered = new CountDownLatch(1);
  }

  @Override
  public void close() {
    release();
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
