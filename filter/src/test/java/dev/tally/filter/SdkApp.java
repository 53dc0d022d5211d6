package dev.tally.filter;

import dev.tally.core.config.TallyConfig;
import dev.tally.core.fingerprint.HmacKey;
import dev.tally.core.fingerprint.KeyRing;
import dev.tally.core.store.ExecutionQuery;
import dev.tally.core.store.ExecutionStore;
import dev.tally.core.store.MemoryExecutionStore;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterRegistration;
import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * An embedded Jetty 12 (ee10) hosting the MCP Java SDK's streamable servlet transport with a
 * side-effect-counting write tool and a read-only tool, optionally behind a {@link TallyFilter}.
 */
final class SdkApp {
  static final String WRITE = "write_ticket";
  static final String READ = "read_ticket";

  /**
   * A read-only status tool: {@code {"executionId": id}} answers {@code status: completed} with the
   * write's result when a write ran under that id, else {@code not_found}.
   */
  static final String STATUS = "ticket_status";

  /** A request header that makes the app drop its answer to that request (a lost answer). */
  static final String DROP_ANSWER = "X-Test-Drop-Answer";

  /** A write tool whose runs are counted apart ({@link #closes}) and found by {@link #STATUS}. */
  static final String CLOSE = "close_ticket";

  final AtomicInteger statusLookups = new AtomicInteger();

  /** The arguments each status lookup came with, in order. */
  final List<Map<String, Object>> statusArguments =
      new java.util.concurrent.CopyOnWriteArrayList<>();

  final AtomicInteger closes = new AtomicInteger();

  /** The result text of each write, by the Idempotency-Key it ran under. */
  final Map<String, String> written = new java.util.concurrent.ConcurrentHashMap<>();

  final AtomicInteger writes = new AtomicInteger();
  final AtomicInteger reads = new AtomicInteger();
  final AtomicInteger reachedServlet = new AtomicInteger();

  /** The {@code traceparent} each gated call (one with an Idempotency-Key) reached the app with. */
  final ConcurrentLinkedQueue<String> traceparents = new ConcurrentLinkedQueue<>();

  /** {@code params._meta.traceparent} of each write as the MCP server read it (null: none). */
  final ConcurrentLinkedQueue<String> metaTraceparents = new ConcurrentLinkedQueue<>();

  /** What each write saw: Idempotency-Key header, request attribute, _meta execution id. */
  final ConcurrentLinkedQueue<List<String>> seen = new ConcurrentLinkedQueue<>();

  volatile CountDownLatch writeStarted = new CountDownLatch(0);
  volatile CountDownLatch releaseWrite = new CountDownLatch(0);

  final ExecutionStore store;
  final TallyFilter filter;
  private final Server server;
  private final McpSyncServer mcp;
  private final URI endpoint;

  private SdkApp(ExecutionStore store, TallyFilter filter) throws Exception {
    this(store, filter, ctx -> {}, new AtomicReference<>());
  }

  private SdkApp(ExecutionStore store, TallyFilter filter, Consumer<ServletContextHandler> setup)
      throws Exception {
    this(store, filter, setup, new AtomicReference<>());
  }

  private SdkApp(
      ExecutionStore store,
      TallyFilter filter,
      Consumer<ServletContextHandler> setup,
      AtomicReference<McpSyncServer> server)
      throws Exception {
    this.store = store;
    this.filter = filter;
    HttpServletStreamableServerTransportProvider transport =
        HttpServletStreamableServerTransportProvider.builder()
            .mcpEndpoint("/mcp")
            .contextExtractor(
                req -> {
                  Map<String, Object> m = new HashMap<>();
                  m.put("key", String.valueOf(req.getHeader("Idempotency-Key")));
                  m.put(
                      "attr", String.valueOf(req.getAttribute(TallyFilter.EXECUTION_ID_ATTRIBUTE)));
                  return McpTransportContext.create(m);
                })
            .build();
    String schema =
        "{\"type\":\"object\",\"properties\":{\"message\":{\"type\":\"string\"},"
            + "\"idempotencyKey\":{\"type\":\"string\"}}}";
    McpSchema.Tool write =
        McpSchema.Tool.builder(WRITE, McpJsonDefaults.getMapper(), schema)
            .description("creates a ticket")
            .build();
    McpSchema.Tool read =
        McpSchema.Tool.builder(READ, McpJsonDefaults.getMapper(), schema)
            .description("reads a ticket")
            .annotations(new McpSchema.ToolAnnotations("read", true, false, true, false, null))
            .build();
    mcp =
        McpServer.sync(transport)
            .serverInfo("sdk-app", "1")
            .capabilities(McpSchema.ServerCapabilities.builder().tools(true).build())
            .tools(
                McpServerFeatures.SyncToolSpecification.builder()
                    .tool(write)
                    .callHandler(
                        (ex, req) -> {
                          writeStarted.countDown();
                          try {
                            releaseWrite.await(30, TimeUnit.SECONDS);
                          } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                          }
                          Object tp = req.meta() == null ? null : req.meta().get("traceparent");
                          metaTraceparents.add(String.valueOf(tp));
                          int n = writes.incrementAndGet();
                          String text = "ticket T-" + n + " for " + req.arguments().get("message");
                          written.put(String.valueOf(ex.transportContext().get("key")), text);
                          Object meta =
                              req.meta() == null ? null : req.meta().get("dev.tally/executionId");
                          seen.add(
                              List.of(
                                  String.valueOf(ex.transportContext().get("key")),
                                  String.valueOf(ex.transportContext().get("attr")),
                                  String.valueOf(meta)));
                          return McpSchema.CallToolResult.builder()
                              .addTextContent(
                                  "ticket T-" + n + " for " + req.arguments().get("message"))
                              .build();
                        })
                    .build(),
                McpServerFeatures.SyncToolSpecification.builder()
                    .tool(read)
                    .callHandler(
                        (ex, req) ->
                            McpSchema.CallToolResult.builder()
                                .addTextContent("read #" + reads.incrementAndGet())
                                .build())
                    .build(),
                McpServerFeatures.SyncToolSpecification.builder()
                    .tool(
                        McpSchema.Tool.builder(CLOSE, McpJsonDefaults.getMapper(), schema)
                            .description("closes a ticket")
                            .build())
                    .callHandler(
                        (ex, req) -> {
                          String text =
                              "ticket T-"
                                  + closes.incrementAndGet()
                                  + " for "
                                  + req.arguments().get("message");
                          written.put(String.valueOf(ex.transportContext().get("key")), text);
                          return McpSchema.CallToolResult.builder().addTextContent(text).build();
                        })
                    .build(),
                McpServerFeatures.SyncToolSpecification.builder()
                    .tool(
                        McpSchema.Tool.builder(STATUS, McpJsonDefaults.getMapper(), schema)
                            .description("finds a ticket by execution id")
                            .annotations(
                                new McpSchema.ToolAnnotations(
                                    "status", true, false, true, false, null))
                            .build())
                    .callHandler(
                        (ex, req) -> {
                          statusLookups.incrementAndGet();
                          statusArguments.add(Map.copyOf(req.arguments()));
                          // The execution id under the default name, or under "operation"
                          // with the ticket's message mapped in as "about".
                          Object op = req.arguments().get("executionId");
                          if (op == null) {
                            op = req.arguments().get("operation");
                          }
                          String text = written.get(String.valueOf(op));
                          Object about = req.arguments().get("about");
                          if (text != null && about != null && !text.endsWith(" for " + about)) {
                            text = null;
                          }
                          Map<String, Object> sc = new HashMap<>();
                          if (text == null) {
                            sc.put("status", "not_found");
                          } else {
                            sc.put("status", "completed");
                            sc.put(
                                "result",
                                Map.of(
                                    "content",
                                    List.of(Map.of("type", "text", "text", "found " + text))));
                          }
                          return McpSchema.CallToolResult.builder()
                              .addTextContent(String.valueOf(sc.get("status")))
                              .structuredContent(sc)
                              .build();
                        })
                    .build())
            .build();
    server.set(mcp);

    this.server = new Server();
    ServerConnector connector = new ServerConnector(this.server);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    this.server.addConnector(connector);
    ServletContextHandler ctx = new ServletContextHandler();
    ctx.setContextPath("/");
    ServletHolder holder = new ServletHolder(transport);
    holder.setAsyncSupported(true);
    ctx.addServlet(holder, "/mcp");
    if (filter != null) {
      FilterHolder fh = new FilterHolder(filter);
      fh.setAsyncSupported(true);
      ctx.addFilter(fh, "/mcp", EnumSet.of(DispatcherType.REQUEST));
    }
    setup.accept(ctx);
    FilterHolder counting = new FilterHolder(countingFilter());
    counting.setAsyncSupported(true);
    ctx.addFilter(counting, "/mcp", EnumSet.of(DispatcherType.REQUEST));
    this.server.setHandler(ctx);
    this.server.start();
    endpoint = URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/mcp");
  }

  /** The app with a Tally filter over a fresh memory store. */
  static SdkApp withFilter(FilterSettings settings) throws Exception {
    ExecutionStore store = MemoryExecutionStore.create();
    TallyFilter filter = TallyFilter.builder().settings(settings).store(store).keys(keys()).build();
    return new SdkApp(store, filter);
  }

  /** The app behind {@code filter}, which records in {@code store}. */
  static SdkApp withFilter(ExecutionStore store, TallyFilter filter) throws Exception {
    return new SdkApp(store, filter);
  }

  static SdkApp withFilter(ExecutionStore store, FilterSettings settings) throws Exception {
    TallyFilter filter = TallyFilter.builder().settings(settings).store(store).keys(keys()).build();
    return new SdkApp(store, filter);
  }

  /**
   * The app with a Tally filter configured by {@code config} that reads the app's tool listing from
   * its MCP Java SDK server ({@link TallyFilter.Builder#toolListing}) when it starts.
   */
  static SdkApp withListingFilter(ExecutionStore store, TallyConfig config) throws Exception {
    AtomicReference<McpSyncServer> mcp = new AtomicReference<>();
    TallyFilter filter =
        TallyFilter.builder()
            .config(config)
            .store(store)
            .keys(keys())
            .toolListing(
                () -> {
                  try {
                    return McpJsonDefaults.getMapper()
                        .writeValueAsString(
                            McpSchema.ListToolsResult.builder(mcp.get().listTools()).build());
                  } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                  }
                })
            .build();
    return new SdkApp(store, filter, ctx -> {}, mcp);
  }

  /** The app with a Tally filter configured by {@code config} (its own store), no listing hook. */
  static SdkApp withConfiguredFilter(TallyConfig config) throws Exception {
    return new SdkApp(null, TallyFilter.builder().config(config).keys(keys()).build());
  }

  /**
   * The app with Tally registered as a web app would: {@code ServletContext.addFilter} from a
   * context listener, configured by init-params only.
   */
  static SdkApp withRegisteredFilter(Map<String, String> initParams) throws Exception {
    return new SdkApp(
        null,
        null,
        ctx ->
            ctx.addEventListener(
                new ServletContextListener() {
                  @Override
                  public void contextInitialized(ServletContextEvent e) {
                    FilterRegistration.Dynamic r =
                        e.getServletContext().addFilter("tally", TallyFilter.class);
                    initParams.forEach(r::setInitParameter);
                    r.setAsyncSupported(true);
                    r.addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), false, "/mcp");
                  }
                }));
  }

  /**
   * The app with a Tally filter configured by {@code config} (its own store) and {@link
   * TallyAdminServlet} at {@code /tally/*} guarded by {@code adminToken}; a request carrying {@link
   * #DROP_ANSWER} has its answer dropped between the app and the filter.
   */
  static SdkApp withAdmin(TallyConfig config, String adminToken, java.time.Clock clock)
      throws Exception {
    TallyFilter filter = TallyFilter.builder().config(config).keys(keys()).clock(clock).build();
    return new SdkApp(
        null,
        filter,
        ctx -> {
          ServletHolder admin = new ServletHolder(new TallyAdminServlet(filter, adminToken));
          ctx.addServlet(admin, "/tally/*");
          FilterHolder drop = new FilterHolder(dropping());
          drop.setAsyncSupported(true);
          ctx.addFilter(drop, "/mcp", EnumSet.of(DispatcherType.REQUEST));
        });
  }

  /** Drops the answer to a request with {@link #DROP_ANSWER}: the tool runs, nothing comes back. */
  private static Filter dropping() {
    return (req, res, chain) -> {
      if (((jakarta.servlet.http.HttpServletRequest) req).getHeader(DROP_ANSWER) == null) {
        chain.doFilter(req, res);
        return;
      }
      jakarta.servlet.http.HttpServletResponse lost =
          new jakarta.servlet.http.HttpServletResponseWrapper(
              (jakarta.servlet.http.HttpServletResponse) res) {
            private final java.io.PrintWriter nowhere =
                new java.io.PrintWriter(java.io.Writer.nullWriter());

            @Override
            public java.io.PrintWriter getWriter() {
              return nowhere;
            }

            @Override
            public jakarta.servlet.ServletOutputStream getOutputStream() {
              return new jakarta.servlet.ServletOutputStream() {
                @Override
                public void write(int b) {}

                @Override
                public boolean isReady() {
                  return true;
                }

                @Override
                public void setWriteListener(jakarta.servlet.WriteListener l) {}
              };
            }

            @Override
            public void flushBuffer() {}
          };
      chain.doFilter(req, lost);
    };
  }

  /** The same app without Tally. */
  static SdkApp plain() throws Exception {
    return new SdkApp(null, null);
  }

  static KeyRing keys() {
    return KeyRing.of(
        HmacKey.of("test", "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII)));
  }

  /** Where {@link TallyAdminServlet} answers in an app made by {@link #withAdmin}. */
  URI admin(String path) {
    return URI.create(baseUrl() + "/tally" + path);
  }

  URI endpoint() {
    return endpoint;
  }

  String baseUrl() {
    return "http://127.0.0.1:" + endpoint.getPort();
  }

  int port() {
    return endpoint.getPort();
  }

  int records(String tool) {
    return store
        .list(new ExecutionQuery(null, tool, null, null, ExecutionQuery.MAX_LIMIT))
        .toCompletableFuture()
        .join()
        .items()
        .size();
  }

  private Filter countingFilter() {
    return (req, res, chain) -> {
      reachedServlet.incrementAndGet();
      jakarta.servlet.http.HttpServletRequest r = (jakarta.servlet.http.HttpServletRequest) req;
      if (r.getHeader("Idempotency-Key") != null) {
        traceparents.add(String.valueOf(r.getHeader("traceparent")));
      }
      chain.doFilter(req, res);
    };
  }

  void close() throws Exception {
    mcp.closeGracefully();
    server.stop();
    if (filter != null) {
      filter.destroy();
    }
    if (store != null) {
      store.close();
    }
  }
}
