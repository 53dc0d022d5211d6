package dev.tally.filter;

import dev.tally.core.actor.ActorResolver;
import dev.tally.core.call.Admission;
import dev.tally.core.call.CallIntake;
import dev.tally.core.call.ToolCatalogue;
import dev.tally.core.config.ConfigOverrides;
import dev.tally.core.config.TallyConfig;
import dev.tally.core.contract.ContractRegistry;
import dev.tally.core.fingerprint.KeyRing;
import dev.tally.core.gate.Gate;
import dev.tally.core.gate.GateOptions;
import dev.tally.core.mcp.WireJson;
import dev.tally.core.runtime.TallyRuntime;
import dev.tally.core.store.ExecutionStore;
import dev.tally.telemetry.OtelTelemetry;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Enumeration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * Tally as a Jakarta Servlet 6 filter: map it to the MCP endpoint and every side-effecting {@code
 * tools/call} gets an execution identity, so a retry after a lost response is replayed instead of
 * run again. Everything that is not a {@code tools/call} passes through untouched.
 *
 * <p>Registered from {@code web.xml} or {@code ServletContext.addFilter} it configures itself from
 * its init-params (see {@link FilterSettings}); embedded servers use {@link #builder()}. A
 * dispatched call reaches the servlet with {@code Idempotency-Key: <execution id>}, the request
 * attribute {@value #EXECUTION_ID_ATTRIBUTE} and {@code params._meta["dev.tally/executionId"]}. On
 * a journal store it opens, the filter keeps the audit journals where {@code tally serve} does
 * ({@link TallyRuntime#auditDir}, with {@code filter.target} as the target; check them with {@code
 * tally audit verify}). Any store on the class path opens by its {@code store} string ({@code
 * postgres://…} with {@code dev.tally:tally-store-postgres}). A store handed to the {@link
 * #builder()} gets no audit journals.
 *
 * <p>The request path is {@link FilterEngine}'s: a servlet shell over core's one pipeline, the same
 * rules as the sidecar.
 */
public final class TallyFilter implements Filter {
  private static final System.Logger LOG = System.getLogger(TallyFilter.class.getName());

  /** Request attribute holding the execution id of a dispatched call. */
  public static final String EXECUTION_ID_ATTRIBUTE = FilterEngine.EXECUTION_ID_ATTRIBUTE;

  /** The init-param naming the shared YAML configuration file. */
  public static final String CONFIG_PARAM = "tally.config";

  /**
   * A servlet context attribute through which an application whose filter is configured by
   * init-params hands over its tool listing: a {@code Supplier<String>} returning the JSON of its
   * MCP server's {@code tools/list} result, as {@link Builder#toolListing} takes it. Set it before
   * the filter is initialized (in a {@code ServletContextListener}).
   */
  public static final String TOOL_LISTING_ATTRIBUTE = "dev.tally.toolListing";

  /** {@code service.name} of the spans and metrics unless {@code OTEL_SERVICE_NAME} is set. */
  public static final String SERVICE_NAME = "tally-filter";

  private volatile FilterEngine engine;
  private volatile TallyRuntime runtime;
  private volatile OtelTelemetry telemetry;
  private volatile java.util.concurrent.ScheduledExecutorService sweeper;
  private volatile Clock clock = Clock.systemUTC();
  private volatile java.time.Duration resultRetention =
      TallyConfig.defaults().tools().defaults().resultRetention();

  /**
   * The servlet context attribute under which an initialized filter publishes itself, so that a
   * {@link TallyAdminServlet} registered by {@code web.xml} finds it.
   */
  public static final String FILTER_ATTRIBUTE = "dev.tally.filter";

  /** A filter that configures itself from its init-params in {@link #init(FilterConfig)}. */
  public TallyFilter() {}

  private TallyFilter(FilterEngine engine, TallyRuntime runtime, OtelTelemetry telemetry) {
    this.engine = engine;
    this.runtime = runtime;
    this.telemetry = telemetry;
  }

  /** A builder for embedded servers. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Configures the filter from its init-params unless it was built by {@link #builder()}, then
   * starts its tool catalogue: the kept one is restored, and the application's own listing (if it
   * handed one over) is read, so the tools are known before the first call.
   */
  @Override
  public void init(FilterConfig config) throws ServletException {
    if (engine == null) {
      try {
        Builder b = builder().config(load(config));
        Object listing = config.getServletContext().getAttribute(TOOL_LISTING_ATTRIBUTE);
        if (listing instanceof Supplier<?> supplier) {
          b.toolListing(
              () -> {
                Object v = supplier.get();
                return v == null ? null : v.toString();
              });
        }
        TallyFilter built = b.build();
        this.runtime = built.runtime;
        this.telemetry = built.telemetry;
        this.clock = built.clock;
        this.resultRetention = built.resultRetention;
        this.engine = built.engine;
      } catch (RuntimeException e) {
        throw new ServletException("tally filter: " + e.getMessage(), e);
      }
    }
    engine.intake().catalogue().start();
    if (config != null && config.getServletContext() != null) {
      config.getServletContext().setAttribute(FILTER_ATTRIBUTE, this);
    }
    startSweep();
  }

  /**
   * Pending calls whose time is up become {@code expired} even when nobody asks about them (every
   * {@link dev.tally.core.gate.Confirmations#SWEEP_EVERY}, as in the sidecar).
   */
  private synchronized void startSweep() {
    if (sweeper != null) {
      return;
    }
    sweeper =
        java.util.concurrent.Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "tally-filter-expiry");
              t.setDaemon(true);
              return t;
            });
    long every = dev.tally.core.gate.Confirmations.SWEEP_EVERY.toMillis();
    sweeper.scheduleWithFixedDelay(
        () -> {
          try {
            runtime
                .gate()
                .confirmations()
                .expireDue()
                .toCompletableFuture()
                .get(every, java.util.concurrent.TimeUnit.MILLISECONDS);
          } catch (Exception e) {
            // the next round tries again
          }
        },
        every,
        every,
        java.util.concurrent.TimeUnit.MILLISECONDS);
  }

  /** The clock of windows and expiries (the builder's). */
  Clock clock() {
    return clock;
  }

  /** How long a result an operator settles is kept ({@code tools.default.resultRetention}). */
  java.time.Duration resultRetention() {
    return resultRetention;
  }

  /** How many of the application's standalone ({@code GET}) event streams are live now. */
  int streams() {
    return engine.streams().size();
  }

  /** The filter's own client to the application's MCP endpoint (confirmed calls, status tools). */
  SelfClient self() {
    return engine.self();
  }

  /**
   * The shared configuration: the file named by init-param {@value #CONFIG_PARAM}, the {@code
   * TALLY_*} environment, then every other init-param as a key path ({@code store}, {@code
   * limits.maxRequestBytes}, {@code filter.framing}), with the precedence of a command-line flag.
   */
  static TallyConfig load(FilterConfig config) {
    ConfigOverrides overrides = ConfigOverrides.ofEnv(System.getenv());
    String file = null;
    for (Enumeration<String> names = config.getInitParameterNames(); names.hasMoreElements(); ) {
      String name = names.nextElement();
      String value = config.getInitParameter(name);
      if (name.equals(CONFIG_PARAM)) {
        file = value;
      } else if (value != null) {
        overrides = overrides.withFlag(name, value.trim());
      }
    }
    return TallyConfig.load(
        file == null || file.isBlank() ? null : Path.of(file.trim()), overrides);
  }

  @Override
  public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    FilterEngine e = engine;
    if (e == null) {
      throw new ServletException("tally filter: not initialized");
    }
    if (request instanceof HttpServletRequest req && response instanceof HttpServletResponse res) {
      e.handle(req, res, chain);
    } else {
      chain.doFilter(request, response);
    }
  }

  /**
   * Why this filter cannot take side-effecting calls now, or null when it can: wire it into the
   * application's readiness check (the sidecar's {@code /readyz} asks the same). While it is not
   * null, gated calls are refused with {@code STORE_UNAVAILABLE} and nothing is dispatched.
   *
   * @return {@code "not initialized"}, {@code "store not writable"} (closed, full, or failed),
   *     {@code "audit journal cannot write (…)"}, or null
   */
  public String notReadyReason() {
    TallyRuntime r = runtime;
    if (engine == null || r == null) {
      return "not initialized";
    }
    return r.notReadyReason();
  }

  /** The gate this filter asks (for tests and operators). */
  public Gate gate() {
    return runtime.gate();
  }

  /**
   * Every metric of this filter in the Prometheus text format (version 0.0.4; the same names as the
   * sidecar's {@code /metrics}, docs/metrics.md), or empty before {@link #init}: serve it on the
   * application's own metrics endpoint. With {@code OTEL_EXPORTER_OTLP_ENDPOINT} set they are also
   * exported over OTLP, with the spans.
   */
  public String metrics() {
    OtelTelemetry t = telemetry;
    return t == null ? "" : t.prometheusText();
  }

  @Override
  public void destroy() {
    java.util.concurrent.ScheduledExecutorService s = sweeper;
    if (s != null) {
      s.shutdownNow();
    }
    FilterEngine e = engine;
    if (e != null) {
      e.self().close();
    }
    TallyRuntime r = runtime;
    if (r != null) {
      r.close();
    }
    OtelTelemetry t = telemetry;
    if (t != null) {
      t.close(); // flushes the last spans
    }
  }

  /** Builds a {@link TallyFilter}; every part has a default except where noted. */
  public static final class Builder {
    private TallyConfig config = TallyConfig.defaults();
    private FilterSettings settings;
    private ExecutionStore store;
    private KeyRing keys;
    private ContractRegistry contracts;
    private ActorResolver actors;
    private Clock clock = Clock.systemUTC();
    private GateOptions gateOptions;
    private Supplier<String> toolListing;
    private OtelTelemetry telemetry;

    private Builder() {}

    /**
     * Where spans and metrics go (default: {@link OtelTelemetry#fromEnvironment} as the standard
     * {@code OTEL_*} variables configure it, export off unless they name an exporter). The filter
     * closes it in {@link TallyFilter#destroy()}.
     */
    public Builder telemetry(OtelTelemetry t) {
      this.telemetry = Objects.requireNonNull(t, "telemetry");
      return this;
    }

    /**
     * The shared configuration (default {@link TallyConfig#defaults()}): tool contracts, actor,
     * idempotency and intent-scope sources, limits, lease, HMAC keys, store, and the {@code filter}
     * section.
     */
    public Builder config(TallyConfig c) {
      this.config = Objects.requireNonNull(c, "config");
      return this;
    }

    /** The filter's own settings (default: {@link FilterSettings#from} the configuration). */
    public Builder settings(FilterSettings s) {
      this.settings = Objects.requireNonNull(s, "settings");
      return this;
    }

    /**
     * The store (default: opened from {@code store.kind}). The caller keeps ownership and closes
     * it.
     */
    public Builder store(ExecutionStore s) {
      this.store = Objects.requireNonNull(s, "store");
      return this;
    }

    /**
     * The HMAC keys (default: {@code hmac.keyFile}, else a key file generated beside the store as
     * {@code tally serve} does).
     */
    public Builder keys(KeyRing k) {
      this.keys = Objects.requireNonNull(k, "keys");
      return this;
    }

    /**
     * Tool contracts (default: the configuration's {@code tools}; learned from {@code tools/list}).
     */
    public Builder contracts(ContractRegistry c) {
      this.contracts = Objects.requireNonNull(c, "contracts");
      return this;
    }

    /** Who is calling (default: the configuration's {@code actor}). */
    public Builder actors(ActorResolver a) {
      this.actors = Objects.requireNonNull(a, "actors");
      return this;
    }

    public Builder clock(Clock c) {
      this.clock = Objects.requireNonNull(c, "clock");
      return this;
    }

    /** Gate options (default: from the configuration, with a fresh owner id). */
    public Builder gateOptions(GateOptions o) {
      this.gateOptions = Objects.requireNonNull(o, "gateOptions");
      return this;
    }

    /**
     * The application's own tool listing: the JSON of its MCP server's {@code tools/list} result (
     * <code>{"tools":[…]}</code>), read when the filter is initialized and again for a call of a
     * tool it does not know (at most every 10 s) — so a read-only tool is known before any client
     * listed it. With the MCP Java SDK: {@code () -> mapper.writeValueAsString(new
     * McpSchema.ListToolsResult.builder(server.listTools()).build())}. Without one the filter
     * learns from clients' {@code tools/list} answers (and from the catalogue kept beside a journal
     * store).
     */
    public Builder toolListing(Supplier<String> listing) {
      this.toolListing = Objects.requireNonNull(listing, "toolListing");
      return this;
    }

    /**
     * A filter ready to use.
     *
     * @throws IllegalArgumentException naming the setting that is wrong
     */
    public TallyFilter build() {
      FilterSettings fs = settings != null ? settings : FilterSettings.from(config);
      OtelTelemetry t = telemetry != null ? telemetry : OtelTelemetry.fromEnvironment(SERVICE_NAME);
      TallyRuntime.Builder b =
          TallyRuntime.builder(config)
              .target(fs.target())
              .owner(TallyRuntime.owner("filter"))
              .clock(clock)
              .log(Builder::log)
              .telemetry(t);
      // The status tools' client needs the gate's idempotency header: bound once it is built.
      java.util.concurrent.atomic.AtomicReference<SelfClient> self =
          new java.util.concurrent.atomic.AtomicReference<>();
      b.statusLookup(
          (tool, args, headers, modern) -> {
            SelfClient c = self.get();
            return c == null
                ? CompletableFuture.completedFuture(java.util.Optional.empty())
                : c.lookup(tool, args, headers, modern);
          });
      if (store != null) {
        b.store(store);
      }
      if (keys != null) {
        b.keys(keys);
      }
      if (contracts != null) {
        b.contracts(contracts);
      }
      if (actors != null) {
        b.actors(actors);
      }
      if (gateOptions != null) {
        b.gateOptions(gateOptions);
      }
      TallyRuntime runtime;
      try {
        runtime = b.open();
      } catch (RuntimeException | Error e) {
        t.close();
        throw e;
      }
      WireJson json = WireJson.create(config.limits().maxJsonDepth());
      ToolCatalogue.Options catalogue =
          ToolCatalogue.Options.clientsOnly(fs.target())
              .withKeeper(runtime.catalogueKeeper())
              .withClock(clock)
              .withLister(toolListing == null ? null : lister(toolListing));
      CallIntake intake =
          CallIntake.create(Admission.of(runtime.gate()), json, fs.target(), catalogue);
      String idempotencyHeader = runtime.gate().options().idempotencyHeader();
      self.set(new SelfClient(fs.selfUrl(), idempotencyHeader, fs.maxResponseBytes()));
      FilterEngine engine = new FilterEngine(intake, json, fs, idempotencyHeader, self.get());
      // The write switch changed what callers may see: say so on every live GET stream.
      intake
          .admission()
          .onToolsChanged(
              () ->
                  engine.streams().notifyAll(dev.tally.core.mcp.Notifications.toolsListChanged()));
      TallyFilter built = new TallyFilter(engine, runtime, t);
      built.clock = clock;
      built.resultRetention = config.tools().defaults().resultRetention();
      return built;
    }

    private static ToolCatalogue.Lister lister(Supplier<String> listing) {
      return () -> {
        String result;
        try {
          result = listing.get();
        } catch (RuntimeException e) {
          return CompletableFuture.failedFuture(
              new ToolCatalogue.ListingFailed(
                  "the application's tool listing failed (" + e.getClass().getSimpleName() + ")"));
        }
        if (result == null) {
          return CompletableFuture.failedFuture(
              new ToolCatalogue.ListingFailed("the application's tool listing returned nothing"));
        }
        return CompletableFuture.completedFuture(List.of(result.getBytes(StandardCharsets.UTF_8)));
      };
    }

    private static void log(String line) {
      LOG.log(System.Logger.Level.INFO, line);
    }
  }
}
