package dev.tally.filter;

import dev.tally.core.store.ExecutionQuery;
import dev.tally.core.store.ExecutionStore;
import dev.tally.core.store.MemoryExecutionStore;
import jakarta.servlet.DispatcherType;
import java.net.URI;
import java.util.EnumSet;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/** Jetty with {@link MiniMcpServlet} behind a {@link TallyFilter}. */
final class MiniApp {
  final MiniMcpServlet servlet;
  final ExecutionStore store = MemoryExecutionStore.create();
  final TallyFilter filter;
  private final Server server;
  final URI endpoint;

  MiniApp(boolean async, FilterSettings settings) throws Exception {
    this(async, TallyFilter.builder().settings(settings));
  }

  /** With the filter configured from {@code config} (its store replaced by this app's). */
  MiniApp(boolean async, dev.tally.core.config.TallyConfig config) throws Exception {
    this(async, TallyFilter.builder().config(config));
  }

  private MiniApp(boolean async, TallyFilter.Builder builder) throws Exception {
    servlet = new MiniMcpServlet(async);
    filter = builder.store(store).keys(SdkApp.keys()).build();
    server = new Server();
    ServerConnector connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    server.addConnector(connector);
    ServletContextHandler ctx = new ServletContextHandler();
    ctx.setContextPath("/");
    ServletHolder holder = new ServletHolder(servlet);
    holder.setAsyncSupported(true);
    ctx.addServlet(holder, "/mcp");
    FilterHolder fh = new FilterHolder(filter);
    fh.setAsyncSupported(true);
    ctx.addFilter(fh, "/mcp", EnumSet.of(DispatcherType.REQUEST));
    server.setHandler(ctx);
    server.start();
    endpoint = URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/mcp");
  }

  int records(String tool) {
    return store
        .list(new ExecutionQuery(null, tool, null, null, ExecutionQuery.MAX_LIMIT))
        .toCompletableFuture()
        .join()
        .items()
        .size();
  }

  void close() throws Exception {
    server.stop();
    filter.destroy();
    store.close();
  }
}
