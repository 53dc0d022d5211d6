package dev.tally.core.runtime;

import dev.tally.core.actor.ActorResolver;
import dev.tally.core.actor.ActorResolvers;
import dev.tally.core.audit.AuditFiles;
import dev.tally.core.audit.AuditTrail;
import dev.tally.core.call.ToolCatalogue;
import dev.tally.core.canonical.Jcs;
import dev.tally.core.config.ConfigException;
import dev.tally.core.config.KeySource;
import dev.tally.core.config.StoreConfig;
import dev.tally.core.config.TallyConfig;
import dev.tally.core.contract.ContractRegistry;
import dev.tally.core.fingerprint.KeyRing;
import dev.tally.core.gate.Gate;
import dev.tally.core.gate.GateOptions;
import dev.tally.core.observe.Meter;
import dev.tally.core.observe.Telemetry;
import dev.tally.core.store.ExecutionStore;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * One assembly of a running Tally from a {@link TallyConfig}, the same for every adapter: the
 * execution store (by {@link StoreProvider}), its audit journals, the fingerprint keys and the
 * {@link Gate}. Close it to stop the gate and close the store, then the audit journals.
 *
 * <p>Where the audit journals of a journal store live: {@code audit.dir} when set, else inside the
 * journal directory ({@code <journal>/audit}, on the store's own volume). A store whose audit
 * journals an earlier version kept in the sibling directory ({@code <journal>/../audit}) keeps them
 * there, so an upgrade never starts a second chain. Other stores have none.
 */
public final class TallyRuntime implements AutoCloseable {
  private final ExecutionStore store;
  private final AuditTrail audit;
  private final KeyRing keys;
  private final Gate gate;
  private final boolean ownsStore;
  private final ToolCatalogue.Keeper catalogue;

  private TallyRuntime(
      ExecutionStore store,
      AuditTrail audit,
      KeyRing keys,
      Gate gate,
      boolean ownsStore,
      ToolCatalogue.Keeper catalogue) {
    this.store = store;
    this.audit = audit;
    this.keys = keys;
    this.gate = gate;
    this.ownsStore = ownsStore;
    this.catalogue = catalogue;
  }

  /** The runtime's gauges and the store's own metrics, the same for every adapter. */
  private static void metrics(Meter m, ExecutionStore s, Gate gate) {
    if (m == Meter.NONE) {
      return;
    }
    m.gauge(
        "tally.store.writable",
        "1 while the execution store accepts writes",
        "",
        () -> s.isWritable() ? 1 : 0);
    m.gauge(
        "tally.executions.in_flight", "executions this instance is driving", "", gate::inFlight);
    s.metrics(m);
  }

  /** A builder for the runtime of {@code config}. */
  public static Builder builder(TallyConfig config) {
    return new Builder(config);
  }

  public ExecutionStore store() {
    return store;
  }

  public AuditTrail audit() {
    return audit;
  }

  public KeyRing keys() {
    return keys;
  }

  /** Where the runtime's spans and metrics go (the gate's). */
  public Telemetry telemetry() {
    return gate.telemetry();
  }

  public Gate gate() {
    return gate;
  }

  /**
   * Where the tool catalogue is kept across restarts: for a journal store this runtime opened, a
   * small file in its directory ({@code tool-catalogue.json}); other stores keep none (the memory
   * store forgets everything on restart anyway; PostgreSQL replicas each list the upstream at
   * start; a store handed to the builder is its owner's).
   */
  public ToolCatalogue.Keeper catalogueKeeper() {
    return catalogue;
  }

  /**
   * Why this runtime cannot take side-effecting calls now, or {@code null} when it can: {@code
   * "store not writable"} (closed, full, or failed) or {@code "audit journal cannot write (…)"}.
   */
  public String notReadyReason() {
    if (!store.isWritable()) {
      return "store not writable";
    }
    String audited = audit.problem();
    return audited == null ? null : "audit journal cannot write (" + audited + ")";
  }

  /** Stops the gate's heartbeats, closes the store (if opened here), then the audit journals. */
  @Override
  public void close() {
    if (catalogue instanceof CatalogueFile f) {
      f.close();
    }
    gate.close();
    if (ownsStore) {
      store.close();
    }
    audit.close(); // after the store: its last group commit still writes entries
  }

  /** The gate options {@code config} implies for the instance {@code owner}. */
  public static GateOptions gateOptions(TallyConfig config, String owner) {
    return new GateOptions(
        owner,
        config.lease().duration(),
        config.lease().heartbeat(),
        config.idempotency().argument(),
        config.idempotency().header(),
        config.intentScope().header(),
        "");
  }

  /** A lease owner id unique to this process: {@code prefix-host/pid/random}. */
  public static String owner(String prefix) {
    String pid = String.valueOf(ProcessHandle.current().pid());
    String host = ManagementFactory.getRuntimeMXBean().getName();
    int at = host.indexOf('@');
    host = at >= 0 ? host.substring(at + 1) : host;
    return prefix + "-" + host + "/" + pid + "/" + UUID.randomUUID().toString().substring(0, 8);
  }

  /**
   * Where the audit journals of {@code config}'s store live, or {@code null} for a store without
   * any (see the class comment).
   *
   * @throws ConfigException when {@code audit.dir} is set for a store that keeps no audit journals
   */
  public static Path auditDir(TallyConfig config) {
    Path configured = config.storage().auditDir();
    if (config.store().kind() != StoreConfig.Kind.JOURNAL) {
      if (configured != null) {
        throw new ConfigException(
            "configuration",
            List.of(
                "audit.dir: set while store is "
                    + config.store().kind().name().toLowerCase(java.util.Locale.ROOT)
                    + " (expected: only with a journal store; the memory store keeps nothing and"
                    + " PostgreSQL's rows are the record)"));
      }
      return null;
    }
    if (configured != null) {
      return configured.toAbsolutePath();
    }
    Path journal = config.store().journalDir().toAbsolutePath();
    Path inside = journal.resolve("audit");
    Path earlier = journal.resolveSibling("audit");
    if (!Files.exists(inside.resolve(AuditFiles.ACTIVITY))
        && Files.exists(earlier.resolve(AuditFiles.ACTIVITY))) {
      return earlier;
    }
    return inside;
  }

  /** Builds a {@link TallyRuntime}; every part not set is made from the configuration. */
  public static final class Builder {
    private final TallyConfig config;
    private String target = "upstream";
    private String owner;
    private String confirmBase;
    private dev.tally.core.gate.StatusLookup statusLookup = dev.tally.core.gate.StatusLookup.NONE;
    private Clock clock = Clock.systemUTC();
    private Consumer<String> log = line -> {};
    private ExecutionStore store;
    private KeyRing keys;
    private ContractRegistry contracts;
    private ActorResolver actors;
    private GateOptions gateOptions;
    private Telemetry telemetry = Telemetry.NONE;

    private Builder(TallyConfig config) {
      this.config = Objects.requireNonNull(config, "config");
    }

    /** What the calls reach (the sidecar's upstream, the filter's application), for the audit. */
    /**
     * Where confirm links point when {@code confirmation.url} is not set: the adapter's own admin
     * address, like {@code http://127.0.0.1:9090} (default none: links are relative).
     */
    public Builder confirmBase(String base) {
      this.confirmBase = base;
      return this;
    }

    /** How status tools are called upstream (default none: unknown outcomes are reported). */
    public Builder statusLookup(dev.tally.core.gate.StatusLookup l) {
      this.statusLookup = java.util.Objects.requireNonNull(l, "statusLookup");
      return this;
    }

    public Builder target(String t) {
      this.target = Objects.requireNonNull(t, "target");
      return this;
    }

    /** The lease owner id (default {@link #owner(String) owner("tally")}). */
    public Builder owner(String o) {
      this.owner = Objects.requireNonNull(o, "owner");
      return this;
    }

    public Builder clock(Clock c) {
      this.clock = Objects.requireNonNull(c, "clock");
      return this;
    }

    /** One-line status messages (never secrets); default none. */
    public Builder log(Consumer<String> l) {
      this.log = Objects.requireNonNull(l, "log");
      return this;
    }

    /**
     * A store the caller opened and keeps (closes) itself; it gets no audit journals (default: the
     * configured store, opened and closed by the runtime).
     */
    public Builder store(ExecutionStore s) {
      this.store = Objects.requireNonNull(s, "store");
      return this;
    }

    /** The HMAC keys (default: {@link KeySource#resolve}). */
    public Builder keys(KeyRing k) {
      this.keys = Objects.requireNonNull(k, "keys");
      return this;
    }

    /** Tool contracts (default: the configuration's {@code tools}). */
    public Builder contracts(ContractRegistry c) {
      this.contracts = Objects.requireNonNull(c, "contracts");
      return this;
    }

    /** Who is calling (default: the configuration's {@code actor}). */
    public Builder actors(ActorResolver a) {
      this.actors = Objects.requireNonNull(a, "actors");
      return this;
    }

    /** Where spans and metrics go (default {@link Telemetry#NONE}: nowhere). */
    public Builder telemetry(Telemetry t) {
      this.telemetry = Objects.requireNonNull(t, "telemetry");
      return this;
    }

    /** Gate options (default: from the configuration, with the owner id). */
    public Builder gateOptions(GateOptions o) {
      this.gateOptions = Objects.requireNonNull(o, "gateOptions");
      return this;
    }

    /**
     * Opens everything; on a failure everything opened here is closed again.
     *
     * @throws ConfigException or the store's own exception, naming what is wrong
     */
    public TallyRuntime open() {
      boolean owns = store == null;
      ExecutionStore s = store;
      AuditTrail audit = AuditTrail.none();
      if (owns) {
        AuditTrail.Opened opened =
            AuditTrail.openStore(
                auditDir(config),
                repair ->
                    StoreProviders.open(new StoreProvider.Request(config, clock, repair, log)),
                target,
                clock,
                log);
        s = opened.store();
        audit = opened.trail();
      }
      try {
        KeyRing k = keys != null ? keys : KeySource.resolve(config, clock, log);
        if (actors == null) {
          AnonymousWarning.log(config.actor(), log);
        }
        GateOptions o =
            gateOptions != null
                ? gateOptions
                : TallyRuntime.gateOptions(
                    config, owner != null ? owner : TallyRuntime.owner("tally"));
        Gate gate =
            Gate.builder(s, k)
                .options(o)
                .contracts(contracts != null ? contracts : config.tools().newRegistry())
                .actors(actors != null ? actors : ActorResolvers.from(config.actor(), k, clock))
                .jcs(Jcs.create(config.limits().canonical()))
                .clock(clock)
                .audit(audit.sink())
                .writes(dev.tally.core.gate.WriteControl.of(config.writes()))
                .statusLookup(statusLookup)
                .confirmation(
                    config.confirmation().url() == null && confirmBase != null
                        ? config.confirmation().withUrl(confirmBase)
                        : config.confirmation())
                .telemetry(telemetry)
                .build();
        // Only beside a journal store opened here: a store the caller handed in is not the one
        // the configuration names, whose directory must then stay untouched.
        ToolCatalogue.Keeper kept =
            owns && config.store().kind() == StoreConfig.Kind.JOURNAL
                ? new CatalogueFile(config.store().journalDir().toAbsolutePath())
                : ToolCatalogue.Keeper.NONE;
        metrics(telemetry.meter(), s, gate);
        return new TallyRuntime(s, audit, k, gate, owns, kept);
      } catch (RuntimeException | Error e) {
        if (owns) {
          s.close();
        }
        audit.close();
        throw e;
      }
    }
  }
}
