package dev.tally.core.gate;

import dev.tally.core.actor.ActorResolver;
import dev.tally.core.actor.IdentityRefused;
import dev.tally.core.audit.AuditSink;
import dev.tally.core.audit.RetryOutcome;
import dev.tally.core.audit.SessionRef;
import dev.tally.core.audit.SessionSeen;
import dev.tally.core.canonical.Jcs;
import dev.tally.core.contract.ContractRegistry;
import dev.tally.core.contract.ToolContract;
import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.execution.Lease;
import dev.tally.core.execution.Transition;
import dev.tally.core.fingerprint.KeyRing;
import dev.tally.core.mcp.Headers;
import dev.tally.core.mcp.McpNames.HeaderNames;
import dev.tally.core.mcp.TallyError;
import dev.tally.core.observe.Telemetry;
import dev.tally.core.store.ExecutionStore;
import dev.tally.core.store.MeteredExecutionStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The one entry point both adapters call (ARCHITECTURE.md §6). Transport-free: it turns a {@link
 * ToolCall} into a {@link Decision} and records every step in the {@link ExecutionStore} before
 * announcing it.
 *
 * <p>Implementation note: a new execution is claimed directly in {@code dispatched} with {@code
 * accepted}, {@code authorized} and {@code dispatched} stamped at the same instant: one durable
 * write before the upstream request, instead of three. Tools that need confirmation are claimed in
 * {@code pending_confirmation}.
 */
public final class Gate implements AutoCloseable {
  /**
   * How long a replay delivered while the first delivery was still being recorded waits for that
   * record (see {@link #replayDelivered}); the owner records it as soon as its write ends.
   */
  static final Duration DELIVERY_SETTLES = Duration.ofSeconds(30);

  private final GateOptions options;
  private final ExecutionStore store;
  private final ContractRegistry contracts;
  private final Clock clock;
  private final CallAnalyzer analyzer;
  private final Matcher matcher;
  private final LeaseKeeper leases;
  private final AuditSink audit;
  private final ActorResolver actors;
  private final WriteControl writes;
  private final Confirmations confirmations;
  private final dev.tally.core.mcp.ToolParamHeaders paramHeaders =
      dev.tally.core.mcp.ToolParamHeaders.create();
  private final StatusChecks statusChecks;
  private final Owners owners;
  private final Telemetry telemetry;

  private Gate(
      GateOptions options,
      ExecutionStore store,
      ContractRegistry contracts,
      KeyRing keys,
      ActorResolver actors,
      Jcs jcs,
      Clock clock,
      AuditSink audit,
      WriteControl writes,
      dev.tally.core.config.ConfirmationConfig confirmation,
      StatusLookup statusLookup,
      Telemetry telemetry) {
    this.telemetry = telemetry;
    this.statusChecks = new StatusChecks(store, clock, statusLookup, audit, paramHeaders);
    this.audit = audit;
    this.writes = writes;
    if (audit != AuditSink.noop()) {
      // Every change of write control is in the audit chain, whoever made it (issue 18).
      writes
          .writeSwitch()
          .watch(c -> audit.control(c.event(), c.actor(), c.position(), clock.instant()));
    }
    this.confirmations =
        new Confirmations(
            this, store, contracts, actors, writes, confirmation, clock, RequestStates.with(keys));
    this.actors = actors;
    this.options = options;
    this.store = store;
    this.contracts = contracts;
    this.clock = clock;
    this.analyzer = new CallAnalyzer(options, keys, actors, jcs, audit != AuditSink.noop());
    this.leases = new LeaseKeeper(store, clock, options.heartbeat());
    this.matcher = new Matcher(this, store, clock);
    this.owners = new Owners(actors, keys);
  }

  /**
   * The actor a session's stream opened by a request with {@code headers} is bound to, or {@code
   * null} when its credential proves nothing (see {@link #sameOwner}).
   */
  public String ownerOf(Headers headers) {
    return owners.ownerOf(headers);
  }

  /**
   * Whether a request with {@code headers} comes from {@code owner} ({@link #ownerOf} of the
   * request that opened the stream), under any key of the ring; {@code owner} null: unbound.
   */
  public boolean sameOwner(String owner, Headers headers) {
    return owners.sameOwner(owner, headers);
  }

  /**
   * A builder for a gate over {@code store} that fingerprints with {@code keys}; every other part
   * has a default. Close the gate to stop its lease heartbeats.
   */
  public static Builder builder(ExecutionStore store, KeyRing keys) {
    return new Builder(store, keys);
  }

  /** Builds a {@link Gate}; required parts first, the rest with defaults named per setter. */
  public static final class Builder {
    private final ExecutionStore store;
    private final KeyRing keys;
    private GateOptions options;
    private ContractRegistry contracts = ContractRegistry.defaults();
    private ActorResolver actors;
    private Jcs jcs = Jcs.create();
    private Clock clock = Clock.systemUTC();
    private AuditSink audit = AuditSink.noop();
    private WriteControl writes = WriteControl.open();
    private StatusLookup statusLookup = StatusLookup.NONE;
    private dev.tally.core.config.ConfirmationConfig confirmation =
        dev.tally.core.config.ConfirmationConfig.DEFAULT;
    private Telemetry telemetry = Telemetry.NONE;

    private Builder(ExecutionStore store, KeyRing keys) {
      this.store = Objects.requireNonNull(store, "store");
      this.keys = Objects.requireNonNull(keys, "keys");
    }

    /** Options (default {@link GateOptions#defaults} with a random owner id). */
    public Builder options(GateOptions o) {
      this.options = Objects.requireNonNull(o, "options");
      return this;
    }

    /** Tool contracts (default {@link ContractRegistry#defaults()}). */
    public Builder contracts(ContractRegistry c) {
      this.contracts = Objects.requireNonNull(c, "contracts");
      return this;
    }

    /** Who is calling (default: a keyed hash of the {@code Authorization} credential). */
    public Builder actors(ActorResolver a) {
      this.actors = Objects.requireNonNull(a, "actors");
      return this;
    }

    /** Canonicalization (default {@link Jcs#create()}: the default limits). */
    public Builder jcs(Jcs j) {
      this.jcs = Objects.requireNonNull(j, "jcs");
      return this;
    }

    /** The clock of windows, leases and timelines (default the system UTC clock). */
    public Builder clock(Clock c) {
      this.clock = Objects.requireNonNull(c, "clock");
      return this;
    }

    /**
     * Where calls answered from an existing execution (attach, replay, …) and sessions are reported
     * (default none); transitions themselves are reported by the store (see {@link
     * dev.tally.core.audit.AuditedExecutionStore}).
     */
    public Builder audit(AuditSink a) {
      this.audit = Objects.requireNonNull(a, "audit");
      return this;
    }

    /** Who sees and may call write tools (default {@link WriteControl#open()}: everyone). */
    public Builder writes(WriteControl w) {
      this.writes = Objects.requireNonNull(w, "writes");
      return this;
    }

    /** How status tools are called upstream (default {@link StatusLookup#NONE}: never). */
    public Builder statusLookup(StatusLookup s) {
      this.statusLookup = Objects.requireNonNull(s, "statusLookup");
      return this;
    }

    /**
     * How confirmations expire and link (default {@link
     * dev.tally.core.config.ConfirmationConfig#DEFAULT}).
     */
    public Builder confirmation(dev.tally.core.config.ConfirmationConfig c) {
      this.confirmation = Objects.requireNonNull(c, "confirmation");
      return this;
    }

    /**
     * Where spans and metrics go (default {@link Telemetry#NONE}); the store is timed and its
     * transitions counted through it ({@link MeteredExecutionStore}).
     */
    public Builder telemetry(Telemetry t) {
      this.telemetry = Objects.requireNonNull(t, "telemetry");
      return this;
    }

    public Gate build() {
      GateOptions o =
          options != null
              ? options
              : GateOptions.defaults("gate-" + java.util.UUID.randomUUID().toString());
      ActorResolver a =
          actors != null
              ? actors
              : dev.tally.core.actor.ActorResolvers.tokenHash("Authorization", keys);
      return new Gate(
          o,
          MeteredExecutionStore.wrap(store, telemetry.meter()),
          contracts,
          keys,
          a,
          jcs,
          clock,
          audit,
          writes,
          confirmation,
          statusLookup,
          telemetry);
    }
  }

  /** Where this gate's spans and metrics go. */
  public Telemetry telemetry() {
    return telemetry;
  }

  /**
   * Decides what to do with one {@code tools/call}. Never completes exceptionally: a store that
   * cannot write yields {@link Decision.Refuse} with {@link TallyError.Code#STORE_UNAVAILABLE}
   * (fail closed: nothing is dispatched unrecorded).
   */
  public CompletionStage<Decision> admit(ToolCall call) {
    ToolContract contract = contracts.resolve(call.tool());
    if (contract.isReadOnly() && !writes.neverExposed(contract.tool())) {
      return CompletableFuture.completedFuture(new Decision.PassThrough(contract));
    }
    // The actor once per call: write control and the analysis both need it (a keyed hash).
    String actor;
    try {
      actor = actors.resolve(call.headers());
    } catch (IdentityRefused e) {
      return CompletableFuture.completedFuture(new Decision.Refuse(e.error()));
    }
    java.util.Optional<TallyError> hidden = writes.refusal(contract, actor, call.headers());
    if (hidden.isPresent()) {
      return CompletableFuture.completedFuture(new Decision.Refuse(hidden.get()));
    }
    CallAnalyzer.Result analysis;
    try {
      analysis = analyzer.analyze(call, contract, actor);
    } catch (IdentityRefused e) {
      return CompletableFuture.completedFuture(new Decision.Refuse(e.error()));
    } catch (RuntimeException e) {
      return CompletableFuture.completedFuture(
          new Decision.Refuse(
              TallyError.of(TallyError.Code.INVALID_REQUEST, "tools/call could not be analyzed")));
    }
    if (analysis instanceof CallAnalyzer.Refused r) {
      return CompletableFuture.completedFuture(new Decision.Refuse(r.error()));
    }
    Identity id = ((CallAnalyzer.Ok) analysis).identity();
    SessionRef session = id.session();
    if (session != null) {
      seen(
          new SessionSeen(
              session,
              id.actor(),
              null,
              null,
              call.headers().get(HeaderNames.PROTOCOL_VERSION),
              clock.instant()));
    }
    // Reported here only: the matcher's decision, however many races it took, is one answer.
    return matcher
        .decide(call, id, null)
        .thenApply(d -> reportRetry(d, session))
        .exceptionally(Gate::storeFailure);
  }

  /** Who sees and may call write tools; its switch is live. */
  public WriteControl writes() {
    return writes;
  }

  StatusChecks statusChecks() {
    return statusChecks;
  }

  /** Pending confirmations: expiry, links, the person's decision. */
  /**
   * The tools' {@code x-mcp-header} parameters as learned from {@code tools/list} (the adapter's
   * {@link dev.tally.core.call.CallIntake} fills it): what a confirmed call's own request mirrors.
   */
  public dev.tally.core.mcp.ToolParamHeaders paramHeaders() {
    return paramHeaders;
  }

  public Confirmations confirmations() {
    return confirmations;
  }

  /**
   * Whether the caller with {@code headers} sees every tool in {@code tools/list}: nothing is never
   * exposed, it may write and its switch is on ({@link WriteControl#hidesNothing}).
   */
  public boolean listsEverything(Headers headers) {
    try {
      return writes.hidesNothing(actors.resolve(headers), headers);
    } catch (IdentityRefused e) {
      return false; // its calls are refused; its listing shows what anyone may see
    }
  }

  /**
   * Whether {@code tool} is listed in {@code tools/list} to the caller with {@code headers}: a
   * read-only tool unless never exposed, a write only while the caller may write (write control).
   */
  public boolean lists(String tool, Headers headers) {
    ToolContract c = contracts.resolve(tool);
    if (c.isReadOnly() && !writes.neverExposed(tool)) {
      return true;
    }
    try {
      return writes.verdict(c, actors.resolve(headers), headers) == WriteControl.Verdict.ALLOWED;
    } catch (IdentityRefused e) {
      return false; // a credential that proves nothing may not write
    }
  }

  /**
   * Reports, for the sessions journal, that an MCP session was established: adapters call it when
   * the upstream's answer to {@code initialize} assigns {@code mcpSessionId}, with the client
   * information of the request ({@code clientInfo.name}, {@code clientInfo.version}, the protocol
   * version; each may be null). Later calls in the session are reported by {@link #admit}. Never
   * throws: an audit journal that cannot write shows as a gap at verify time.
   */
  public void sessionStarted(
      String mcpSessionId,
      Headers headers,
      String clientName,
      String clientVersion,
      String protocolVersion) {
    if (mcpSessionId == null || mcpSessionId.isEmpty() || audit == AuditSink.noop()) {
      return;
    }
    try {
      seen(
          new SessionSeen(
              SessionRef.mcpSession(mcpSessionId),
              actors.resolve(headers),
              clientName,
              clientVersion,
              protocolVersion,
              clock.instant()));
    } catch (RuntimeException e) {
      // as in seen()
    }
  }

  private void seen(SessionSeen s) {
    try {
      audit.session(s);
    } catch (RuntimeException e) {
      // The call goes on; an audit journal that cannot write shows as a gap at verify time.
    }
  }

  /**
   * Describes how the gate identifies {@code call} (actor, canonical record, fingerprint) without
   * touching the store. Returns empty and hands the refusal to {@code refused} if invalid.
   */
  public java.util.Optional<Description> describe(
      ToolCall call, java.util.function.Consumer<TallyError> refused) {
    ToolContract contract = contracts.resolve(call.tool());
    CallAnalyzer.Result analysis;
    try {
      analysis = analyzer.analyze(call, contract);
    } catch (IdentityRefused e) {
      refused.accept(e.error());
      return java.util.Optional.empty();
    }
    if (analysis instanceof CallAnalyzer.Refused r) {
      refused.accept(r.error());
      return java.util.Optional.empty();
    }
    Identity id = ((CallAnalyzer.Ok) analysis).identity();
    return java.util.Optional.of(
        new Description(
            id.actor(),
            contract.toolClass().wireName(),
            id.canonical(),
            id.fingerprint().render(),
            id.idempotencyKey() != null ? "idempotency_key" : "fingerprint",
            id.summary()));
  }

  /**
   * Reports to the audit journal a call (in {@code session}) answered from an existing execution.
   */
  private Decision reportRetry(Decision d, SessionRef session) {
    RetryOutcome outcome = null;
    Execution e = null;
    if (d instanceof Decision.Replay r) {
      outcome = RetryOutcome.REPLAYED;
      e = r.execution();
    } else if (d instanceof Decision.Attach a) {
      outcome = RetryOutcome.ATTACHED;
      e = a.execution();
    } else if (d instanceof Decision.Respond r) {
      e = r.execution();
      outcome =
          switch (r.code()) {
            case IDEMPOTENCY_KEY_REUSED -> RetryOutcome.KEY_REUSED;
            case OUTCOME_UNKNOWN -> RetryOutcome.OUTCOME_UNKNOWN;
            case REJECTED -> RetryOutcome.REJECTED;
            case PENDING_CONFIRMATION ->
                e.version() > 1 || e.timeline().size() > 2 ? RetryOutcome.PENDING : null;
            case IDEMPOTENCY_IN_PROGRESS -> RetryOutcome.ATTACHED;
            case RESULT_NOT_RETAINED -> RetryOutcome.REPLAYED;
            case CONFIRMATION_CANCELLED -> RetryOutcome.CANCELLED;
            case CONFIRMATION_EXPIRED -> RetryOutcome.EXPIRED;
            case RESULT_WITHHELD -> null;
          };
    }
    if (outcome != null) {
      try {
        audit.retry(e, outcome, session, clock.instant());
      } catch (RuntimeException ex) {
        // The decision stands; an audit journal that cannot write shows as a gap at verify time.
      }
    }
    return d;
  }

  static Decision storeFailure(Throwable t) {
    return new Decision.Refuse(
        TallyError.of(
            TallyError.Code.STORE_UNAVAILABLE,
            "the execution store cannot record this call now; nothing was sent, retry later"));
  }

  /**
   * Records that a replayed result was written to its client. An execution whose first delivery
   * failed ({@code completed_not_delivered}) becomes {@code delivered}; a {@code completed} one is
   * still being settled by its owner (a retry attached to a running call is answered at the moment
   * it completes, while the first client's delivery is still being written): the record is awaited
   * for up to {@link #DELIVERY_SETTLES} and, if that delivery failed, this one is recorded, so the
   * evidence of a result received is never lost to that race. Any other state is left alone.
   * Completes with the execution as it now stands and never fails: a lost race or a store error
   * leaves the record as it was, which is safe (it keeps replaying).
   */
  public CompletionStage<Execution> replayDelivered(Execution e) {
    if (e.state() == ExecutionState.COMPLETED) {
      return store
          .awaitChange(e.id(), e.version(), DELIVERY_SETTLES)
          .thenCompose(
              now ->
                  now.isPresent() && now.get().state() == ExecutionState.COMPLETED_NOT_DELIVERED
                      ? replayDelivered(now.get())
                      : CompletableFuture.completedFuture(now.orElse(e)))
          .exceptionally(err -> e);
    }
    if (e.state() != ExecutionState.COMPLETED_NOT_DELIVERED) {
      return CompletableFuture.completedFuture(e);
    }
    Transition t =
        Deliveries.transition(
            e, ExecutionState.DELIVERED, contracts.resolve(e.tool()), clock.instant());
    return store.transition(t).exceptionally(err -> e);
  }

  public ContractRegistry contracts() {
    return contracts;
  }

  /**
   * Whether a call of {@code tool} passes straight through, unrecorded: its contract (by
   * configuration, then learned annotations, then the default) is {@code read_only}. The one
   * decision behind both {@link #admit}'s {@link Decision.PassThrough} and the adapters' fast path
   * that skips reading such a call whole.
   */
  public boolean passesThrough(String tool) {
    return contracts.resolve(tool).isReadOnly() && !writes.neverExposed(tool);
  }

  public ExecutionStore store() {
    return store;
  }

  public GateOptions options() {
    return options;
  }

  /** How many executions this instance is driving right now. */
  public int inFlight() {
    return leases.size();
  }

  /**
   * Waits up to {@code bound} for in-flight executions to settle, then records every one still open
   * as {@code outcome_unknown} (the SIGTERM drain). Completes with how many were abandoned.
   */
  public CompletionStage<Integer> drain(Duration bound) {
    CompletableFuture<Integer> done = new CompletableFuture<>();
    Instant deadline = clock.instant().plus(bound);
    pollDrain(deadline, done);
    return done;
  }

  private void pollDrain(Instant deadline, CompletableFuture<Integer> done) {
    if (leases.size() == 0) {
      done.complete(0);
      return;
    }
    if (!clock.instant().isBefore(deadline)) {
      var open = leases.tracked();
      CompletableFuture<?>[] all =
          open.stream()
              .map(
                  f ->
                      f.unknown("drained at shutdown")
                          .toCompletableFuture()
                          .exceptionally(e -> null))
              .toArray(CompletableFuture[]::new);
      CompletableFuture.allOf(all).whenComplete((v, e) -> done.complete(open.size()));
      return;
    }
    CompletableFuture.delayedExecutor(20, java.util.concurrent.TimeUnit.MILLISECONDS)
        .execute(() -> pollDrain(deadline, done));
  }

  /** Runs one heartbeat and reaper round now (tests and shutdown). */
  public CompletionStage<Integer> tickLeases() {
    return leases.tick();
  }

  @Override
  public void close() {
    leases.close();
  }

  // --- used by Matcher -------------------------------------------------------------------

  Execution newExecution(Identity id, Instant now) {
    ToolContract c = id.contract();
    Map<ExecutionState, Instant> tl = new EnumMap<>(ExecutionState.class);
    tl.put(ExecutionState.ACCEPTED, now);
    ExecutionState state;
    Lease lease = null;
    if (c.confirmationRequired()) {
      state = ExecutionState.PENDING_CONFIRMATION;
    } else {
      tl.put(ExecutionState.AUTHORIZED, now);
      state = ExecutionState.DISPATCHED;
      lease = newLease(now);
    }
    tl.put(state, now);
    // Every execution holds its match key until it is resolved or its retention ends (delivery
    // shortens a key-less one's hold to its attach window: Deliveries): an outcome that stays
    // unknown, or a result not delivered, is never run again by an identical retry.
    Duration retain =
        c.resultRetention().compareTo(c.attachWindow()) >= 0
            ? c.resultRetention()
            : c.attachWindow();
    Duration hold = retain;
    ExecutionId executionId = ExecutionId.generate(clock);
    if (id.session() != null) {
      try {
        audit.attribute(executionId, id.session());
      } catch (RuntimeException e) {
        // The creation entry then names no session.
      }
    }
    return new Execution(
        executionId,
        1,
        id.matchKey(),
        id.kind(),
        id.actor(),
        id.tool(),
        c.toolClass(),
        id.fingerprint().render(),
        id.intentScope(),
        state,
        tl,
        now.plus(hold),
        now.plus(retain),
        lease,
        null,
        null,
        null,
        false,
        id.summary());
  }

  /** A claim of {@code candidate} failed with no answer on whether it landed (see LeaseKeeper). */
  void claimFailed(Execution candidate) {
    if (candidate.state() == ExecutionState.DISPATCHED && candidate.lease() != null) {
      leases.unsent(candidate);
    }
  }

  Lease newLease(Instant now) {
    return new Lease(options.owner(), now.plus(options.lease()));
  }

  boolean ownsLease(Execution e) {
    return e.lease() != null && e.lease().owner().equals(options.owner());
  }

  Decision dispatch(Execution e, ToolContract contract, boolean continued) {
    InFlightExecution[] self = new InFlightExecution[1];
    self[0] =
        new InFlightExecution(
            e,
            contract,
            continued,
            store,
            clock,
            options.owner(),
            options.lease(),
            () -> leases.untrack(self[0]));
    leases.track(self[0]);
    return new Decision.Dispatch(self[0]);
  }
}
