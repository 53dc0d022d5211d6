package dev.tally.core.gate;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tally.core.actor.ActorResolver;
import dev.tally.core.actor.ActorResolvers;
import dev.tally.core.config.ConfirmationConfig;
import dev.tally.core.contract.ContractRegistry;
import dev.tally.core.contract.ToolContract;
import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionId;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.execution.Transition;
import dev.tally.core.mcp.Headers;
import dev.tally.core.mcp.TallyError;
import dev.tally.core.mcp.ToolCallEnvelope;
import dev.tally.core.mcp.ToolCallReader;
import dev.tally.core.mcp.WireJson;
import dev.tally.core.store.ExecutionQuery;
import dev.tally.core.store.ExecutionStore;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Human confirmation of calls whose contract says {@code confirmationRequired} (issue 18): the
 * pending call's expiry and link, the stored call it will run, and the person's decision. Only the
 * actor that made the call may confirm or cancel it; anyone else learns nothing (the same neutral
 * {@link NotPending} as for a call already decided). Confirming runs the stored call: {@code
 * authorized}, then {@code dispatched} (durable before a byte is sent) under the same execution id,
 * handed to the adapter as an {@link Execute}.
 *
 * <p>Implementation note: the call to run is kept in the execution's result slot while it is
 * pending (a {@code pending_confirmation -> pending_confirmation} transition stores it, with the
 * store's durability and size cap); every transition out of {@code pending_confirmation} overwrites
 * it with {@link #WIPED}, so its raw arguments are kept no longer than needed. Neither the journal
 * of activity nor any log sees those bytes.
 */
public final class Confirmations {
  /**
   * How often an adapter runs {@link #expireDue()}, so that pending calls whose time is up become
   * {@code expired} even when nobody asks about them.
   */
  public static final java.time.Duration SWEEP_EVERY = java.time.Duration.ofSeconds(15);

  /** What the stored call is replaced with once it is no longer needed. */
  static final byte[] WIPED = "{}".getBytes(StandardCharsets.UTF_8);

  /** What the person's decision came to. */
  public sealed interface Outcome {}

  /**
   * Confirmed: send {@code body} (the stored call with the execution id in its {@code _meta})
   * upstream with {@code Idempotency-Key: <execution id>} and report through {@code inFlight}. A
   * 2026-07-28 call also carries {@code headers}, the mirrored headers its client would have sent
   * ({@link dev.tally.core.mcp.HeaderRules#mirrored}, {@code Mcp-Param-*} included); empty for a
   * 2025-era call, which runs on a session of its own.
   */
  public record Execute(
      InFlight inFlight, ToolCallEnvelope call, byte[] body, Map<String, String> headers)
      implements Outcome {
    public Execute {
      headers = Map.copyOf(headers);
    }
  }

  /** Cancelled: {@code execution} is {@code cancelled}. */
  public record Cancelled(Execution execution) implements Outcome {}

  /**
   * Nothing to decide for this caller: the call was decided, expired, or requested by someone else.
   * {@code own} is the execution when the caller made it (then it may be told its state), else
   * empty.
   */
  public record NotPending(Optional<Execution> own) implements Outcome {}

  /**
   * The rules refuse it now ({@code error}); {@code execution} is as it now stands (still {@code
   * pending_confirmation} when the refusal may pass, e.g. the write switch is off).
   */
  public record Refused(TallyError error, Execution execution) implements Outcome {}

  private final Gate gate;
  private final ExecutionStore store;
  private final ContractRegistry contracts;
  private final ActorResolver actors;
  private final WriteControl writes;
  private final ConfirmationConfig config;
  private final Clock clock;
  private final RequestStates states;
  private final ToolCallReader reader = ToolCallReader.create(WireJson.defaults());
  private volatile String base;

  Confirmations(
      Gate gate,
      ExecutionStore store,
      ContractRegistry contracts,
      ActorResolver actors,
      WriteControl writes,
      ConfirmationConfig config,
      Clock clock,
      RequestStates states) {
    this.gate = gate;
    this.states = states;
    this.store = store;
    this.contracts = contracts;
    this.actors = actors;
    this.writes = writes;
    this.config = config;
    this.clock = clock;
  }

  public ConfirmationConfig config() {
    return config;
  }

  /**
   * The {@code requestState} codec of the input-required answer that offers a pending call as a
   * URL-mode elicitation (2026-07-28 era).
   */
  public RequestStates requestStates() {
    return states;
  }

  /** The current instant of this gate's clock (to verify a {@code requestState} against). */
  public Instant now() {
    return clock.instant();
  }

  /** When the pending {@code e} expires: its acceptance plus its tool's expiry. */
  public Instant expiresAt(Execution e) {
    Instant from = e.at(ExecutionState.ACCEPTED);
    if (from == null) {
      from = e.at(ExecutionState.PENDING_CONFIRMATION);
    }
    return (from == null ? clock.instant() : from).plus(config.expiryOf(e.tool()));
  }

  /** Whether the pending {@code e} has expired at {@code now}. */
  public boolean expired(Execution e, Instant now) {
    return !now.isBefore(expiresAt(e));
  }

  /**
   * The link a person follows to decide on {@code id}: under {@link ConfirmationConfig#url()}, else
   * under the adapter's own address ({@link #useBase}).
   */
  public String confirmUrl(ExecutionId id) {
    String b = config.url() != null ? config.url() : base;
    return (b == null ? "" : b) + "/console/actions/" + id.value();
  }

  /**
   * Where links point when {@code confirmation.url} is not set: the adapter calls it once at start
   * with its admin address (known only once its port is bound).
   */
  public void useBase(String adminBase) {
    this.base = adminBase;
  }

  /** The actor of a request with {@code headers}. */
  public String actorOf(Headers headers) {
    return actors.resolve(headers);
  }

  /** The preview of the call {@code original} (a {@code tools/call} message) to {@code target}. */
  public Optional<ObjectNode> preview(String tool, byte[] original, String target) {
    if (original == null) {
      return Optional.empty();
    }
    ToolCallReader.Read r = reader.read(original, 0, original.length);
    if (!(r instanceof ToolCallReader.Ok ok)) {
      return Optional.empty();
    }
    return Optional.of(
        PendingPreview.of(contracts.resolve(tool), target, ok.envelope().arguments()));
  }

  /** The stored call of the pending {@code e}, if it was stored. */
  public CompletionStage<Optional<byte[]>> storedCall(Execution e) {
    if (e.state() != ExecutionState.PENDING_CONFIRMATION || e.result() == null) {
      return CompletableFuture.completedFuture(Optional.empty());
    }
    return store.result(e.id()).thenApply(b -> b.map(x -> StoredCall.decode(x).message()));
  }

  /**
   * Stores {@code original}, the call's message, with the pending {@code e} so that confirming it
   * runs exactly what the client sent, with the digest of the contract it was made under ({@link
   * StoredCall}). Already stored: completes with {@code e} unchanged.
   */
  public CompletionStage<Execution> storeCall(Execution e, byte[] original) {
    if (e.state() != ExecutionState.PENDING_CONFIRMATION || e.result() != null) {
      return CompletableFuture.completedFuture(e);
    }
    Instant now = clock.instant();
    return store.transition(
        Transition.to(e, ExecutionState.PENDING_CONFIRMATION, now)
            .withResult(StoredCall.encode(contracts.resolve(e.tool()).digest(), original), false));
  }

  /**
   * Records the pending {@code e} as {@code expired} when its time is up, else completes with it
   * unchanged; a lost race completes with the record as it then stood.
   */
  public CompletionStage<Execution> expireIfDue(Execution e) {
    Instant now = clock.instant();
    if (e.state() != ExecutionState.PENDING_CONFIRMATION || !expired(e, now)) {
      return CompletableFuture.completedFuture(e);
    }
    return leave(e, ExecutionState.EXPIRED, now);
  }

  /**
   * Confirmed for an adapter that cannot send a call by itself (the servlet filter): {@code
   * execution} is {@code authorized}, and the agent's next retry of the call dispatches it under
   * the same execution id.
   */
  public record Authorized(Execution execution) implements Outcome {}

  /** Confirms {@code id} for the caller with {@code headers}. Never fails but on a store error. */
  public CompletionStage<Outcome> confirm(ExecutionId id, Headers headers) {
    return decide(id, headers, true);
  }

  /**
   * As {@link #confirm}, with the same checks, for an adapter that cannot run the call itself: the
   * call is only {@code authorized} ({@link Authorized}); its next retry dispatches it.
   */
  public CompletionStage<Outcome> authorize(ExecutionId id, Headers headers) {
    return decide(id, headers, false);
  }

  /** What is done with a call still pending for its own actor, at {@code now}. */
  @FunctionalInterface
  private interface PendingStep {
    CompletionStage<Outcome> apply(Execution e, String actor, Instant now);
  }

  /**
   * Hands {@code step} the execution {@code id} when it is pending and the caller with {@code
   * headers} made it; otherwise the neutral {@link NotPending}.
   */
  private CompletionStage<Outcome> whenPending(ExecutionId id, Headers headers, PendingStep step) {
    String actor = actors.resolve(headers);
    return own(id, actor)
        .thenCompose(
            found -> {
              if (found.isEmpty()) {
                return done(new NotPending(Optional.empty()));
              }
              Execution e = found.get();
              if (e.state() != ExecutionState.PENDING_CONFIRMATION) {
                return done(new NotPending(found));
              }
              return step.apply(e, actor, clock.instant());
            });
  }

  private CompletionStage<Outcome> decide(ExecutionId id, Headers headers, boolean runHere) {
    return whenPending(
        id,
        headers,
        (e, actor, now) -> {
          if (expired(e, now)) {
            return leave(e, ExecutionState.EXPIRED, now)
                .thenApply(x -> (Outcome) new NotPending(Optional.of(x)));
          }
          ToolContract contract = contracts.resolve(e.tool());
          return store
              .result(e.id())
              .thenCompose(
                  bytes -> {
                    Optional<StoredCall> stored = bytes.map(StoredCall::decode);
                    Optional<String> changed = changed(e, contract, stored);
                    if (changed.isPresent()) {
                      return reject(e, now, TallyError.Code.CONTRACT_CHANGED, changed.get());
                    }
                    WriteControl.Verdict v = writes.verdict(contract, actor, headers);
                    if (v == WriteControl.Verdict.SWITCHED_OFF) {
                      return done(
                          new Refused(
                              TallyError.of(
                                  TallyError.Code.MCP_WRITE_DISABLED,
                                  "writes are switched off for you now; the action stays pending"
                                      + " until it expires"),
                              e));
                    }
                    if (v == WriteControl.Verdict.HIDDEN || contract.isReadOnly()) {
                      return reject(
                          e, now, "you may no longer use this tool; the action was rejected");
                    }
                    Optional<ToolCallEnvelope> call = stored.flatMap(c -> envelope(c.message()));
                    if (call.isEmpty()) {
                      return reject(
                          e, now, "the call was not stored and cannot be run; it was rejected");
                    }
                    if (!runHere) {
                      return store
                          .transition(
                              Transition.to(e, ExecutionState.AUTHORIZED, now)
                                  .withResult(WIPED, false))
                          .thenApply(x -> (Outcome) new Authorized(x));
                    }
                    return run(e, contract, call.get(), now);
                  });
        });
  }

  /** Cancels {@code id} for the caller with {@code headers}. */
  public CompletionStage<Outcome> cancel(ExecutionId id, Headers headers) {
    return whenPending(
        id,
        headers,
        (e, actor, now) ->
            leave(e, expired(e, now) ? ExecutionState.EXPIRED : ExecutionState.CANCELLED, now)
                .thenApply(
                    x ->
                        x.state() == ExecutionState.CANCELLED
                            ? (Outcome) new Cancelled(x)
                            : new NotPending(Optional.of(x))));
  }

  /**
   * Cancels every pending call of {@code actor} (its revocation); completes with how many. Looks at
   * up to {@link ExecutionQuery#MAX_LIMIT} of them per page.
   */
  public CompletionStage<Integer> cancelAllOf(String actor) {
    return pendingOf(actor)
        .thenCompose(
            list -> {
              CompletionStage<Integer> n = CompletableFuture.completedFuture(0);
              Instant now = clock.instant();
              for (Execution e : list) {
                n =
                    n.thenCompose(
                        k ->
                            leave(e, ExecutionState.CANCELLED, now)
                                .handle(
                                    (x, err) ->
                                        err == null && x.state() == ExecutionState.CANCELLED
                                            ? k + 1
                                            : k));
              }
              return n;
            });
  }

  /** Records every pending call whose time is up as {@code expired}; completes with how many. */
  public CompletionStage<Integer> expireDue() {
    return pending(null)
        .thenCompose(
            list -> {
              CompletionStage<Integer> n = CompletableFuture.completedFuture(0);
              for (Execution e : list) {
                n =
                    n.thenCompose(
                        k ->
                            expireIfDue(e)
                                .handle(
                                    (x, err) ->
                                        err == null && x.state() == ExecutionState.EXPIRED
                                            ? k + 1
                                            : k));
              }
              return n;
            });
  }

  /**
   * The pending calls of {@code actor}, newest first (at most {@link ExecutionQuery#MAX_LIMIT}).
   */
  public CompletionStage<List<Execution>> pendingOf(String actor) {
    return pending(actor);
  }

  private CompletionStage<List<Execution>> pending(String actor) {
    return store
        .list(
            new ExecutionQuery(
                ExecutionState.PENDING_CONFIRMATION, null, actor, null, ExecutionQuery.MAX_LIMIT))
        .thenApply(p -> new ArrayList<>(p.items()));
  }

  private CompletionStage<Optional<Execution>> own(ExecutionId id, String actor) {
    if (actor == null || ActorResolvers.ANONYMOUS.equals(actor)) {
      return CompletableFuture.completedFuture(Optional.empty());
    }
    return store.find(id).thenApply(f -> f.filter(e -> e.actor().equals(actor)));
  }

  private Optional<ToolCallEnvelope> envelope(byte[] b) {
    ToolCallReader.Read r = reader.read(b, 0, b.length);
    return r instanceof ToolCallReader.Ok ok ? Optional.of(ok.envelope()) : Optional.empty();
  }

  private CompletionStage<Outcome> run(
      Execution e, ToolContract contract, ToolCallEnvelope call, Instant now) {
    return store
        .transition(
            Transition.to(e, ExecutionState.AUTHORIZED, now)
                .withResult(WIPED, false)
                .withLease(gate.newLease(now)))
        .thenCompose(
            authorized ->
                store.transition(
                    Transition.to(authorized, ExecutionState.DISPATCHED, clock.instant())
                        .withLease(gate.newLease(clock.instant()))))
        .thenApply(
            dispatched -> {
              Decision d = gate.dispatch(dispatched, contract, true);
              InFlight f = ((Decision.Dispatch) d).inFlight();
              return (Outcome)
                  new Execute(f, call, call.withExecutionId(f.id().value()), mirrored(call));
            });
  }

  /** The headers a 2026-07-28 client sends with {@code call}; none for a 2025-era call. */
  private Map<String, String> mirrored(ToolCallEnvelope call) {
    String v = call.metaVersion();
    if (v == null || !dev.tally.core.mcp.ProtocolVersions.isModern(v)) {
      return Map.of();
    }
    return dev.tally.core.mcp.HeaderRules.mirrored(
        v, call.tool(), call.arguments(), gate.paramHeaders().forTool(call.tool()));
  }

  private CompletionStage<Outcome> reject(Execution e, Instant now, String why) {
    return reject(e, now, TallyError.Code.INVALID_REQUEST, why);
  }

  private CompletionStage<Outcome> reject(
      Execution e, Instant now, TallyError.Code code, String why) {
    return leave(e, ExecutionState.REJECTED, now)
        .thenApply(x -> (Outcome) new Refused(TallyError.of(code, why), x));
  }

  /**
   * Why {@code contract}, the tool's contract now, is not the one the pending {@code e} was made
   * under ({@code stored} holds the digest it was made under, when one was stored); empty when it
   * is the same. The rules are evaluated again at confirm time (issue 18): a call made under other
   * rules is never run under these.
   */
  static Optional<String> changed(Execution e, ToolContract contract, Optional<StoredCall> stored) {
    if (!contract.confirmationRequired()) {
      return Optional.of(
          "the tool's contract changed: it no longer requires confirmation (or the tool is no"
              + " longer configured); the action was rejected, call the tool again if it is"
              + " still wanted");
    }
    if (contract.toolClass() != e.toolClass()) {
      return Optional.of(
          "the tool's contract changed: its class is now "
              + contract.toolClass().name().toLowerCase(java.util.Locale.ROOT)
              + "; the action was rejected");
    }
    String was = stored.map(StoredCall::digest).orElse(null);
    if (was != null && !was.equals(contract.digest())) {
      return Optional.of(
          "the tool's contract changed since the call was made; the action was rejected");
    }
    return Optional.empty();
  }

  /** Moves the pending {@code e} to {@code to}, wiping its stored call; a lost race re-reads it. */
  private CompletionStage<Execution> leave(Execution e, ExecutionState to, Instant now) {
    Transition t = Transition.to(e, to, now);
    if (e.result() != null) {
      t = t.withResult(WIPED, false);
    }
    return store
        .transition(t)
        .exceptionallyCompose(err -> store.find(e.id()).thenApply(f -> f.orElse(e)));
  }

  private static CompletionStage<Outcome> done(Outcome o) {
    return CompletableFuture.completedFuture(o);
  }
}
