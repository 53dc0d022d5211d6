package dev.tally.bench.filter;

import dev.tally.core.fingerprint.HmacKey;
import dev.tally.core.fingerprint.KeyRing;
import dev.tally.core.store.MemoryExecutionStore;
import dev.tally.filter.TallyFilter;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import jakarta.servlet.DispatcherType;
import java.net.URI;
import java.security.SecureRandom;
import java.util.EnumSet;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The benchmarked app: the MCP Java SDK's streamable servlet transport in Jetty 12 with a
 * side-effecting tool and a read-only tool, with or without the Tally filter (memory store).
 */
final class TicketApp {
  static final String WRITE = "write_ticket";
  static final String READ = "read_ticket";

  final AtomicLong writes = new AtomicLong();
  private final Server server;
  private final McpSyncServer mcp;
  private final TallyFilter filter;
  private final MemoryExecutionStore store;
  final URI endpoint;

  TicketApp(boolean withFilter) throws Exception {
    HttpServletStreamableServerTransportProvider transport =
        HttpServletStreamableServerTransportProvider.builder().mcpEndpoint("/mcp").build();
    String schema = "{\"type\":\"object\",\"properties\":{\"message\":{\"type\":\"string\"}}}";
    mcp =
        McpServer.sync(transport)
            .serverInfo("bench", "1")
            .capabilities(McpSchema.ServerCapabilities.builder().tools(true).build())
            .tools(
                McpServerFeatures.SyncToolSpecification.builder()
                    .tool(
                        McpSchema.Tool.builder(WRITE, McpJsonDefaults.getMapper(), schema).build())
                    .callHandler(
                        (ex, req) ->
                            McpSchema.CallToolResult.builder()
                                .addTextContent("ticket T-" + writes.incrementAndGet())
                                .build())
                    .build(),
                McpServerFeatures.SyncToolSpecification.builder()
                    .tool(
                        McpSchema.Tool.builder(READ, McpJsonDefaults.getMapper(), schema)
                            .annotations(
                                new McpSchema.ToolAnnotations(
                                    "read", true, false, true, false, null))
                            .build())
                    .callHandler(
                        (ex, req) ->
                            McpSchema.CallToolResult.builder().addTextContent("ticket T-0").build())
                    .build())
            .build();
    QueuedThreadPool threads = new QueuedThreadPool(64);
    server = new Server(threads);
    ServerConnector connector = new ServerConnector(server, 1, 1);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    // The driver leaves one app idle while it loads the other: keep its connections open.
    connector.setIdleTimeout(600_000);
    server.addConnector(connector);
    ServletContextHandler ctx = new ServletContextHandler();
    ctx.setContextPath("/");
    ServletHolder holder = new ServletHolder(transport);
    holder.setAsyncSupported(true);
    ctx.addServlet(holder, "/mcp");
    if (withFilter) {
      byte[] key = new byte[32];
      new SecureRandom().nextBytes(key);
      store = MemoryExecutionStore.create();
      filter =
          TallyFilter.builder().store(store).keys(KeyRing.of(HmacKey.of("bench", key))).build();
      FilterHolder fh = new FilterHolder(filter);
      fh.setAsyncSupported(true);
      ctx.addFilter(fh, "/mcp", EnumSet.of(DispatcherType.REQUEST));
    } else {
      store = null;
      filter = null;
    }
    server.setHandler(ctx);
    server.start();
    endpoint = URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/mcp");
  }

  void close() throws Exception {
    mcp.closeGracefully();
    server.stop();
    if (filter != null) {
      filter.destroy();
      store.close();
    }
  }
}
