package dev.tally.core.gate;

import dev.tally.core.actor.ActorResolvers;
import dev.tally.core.contract.ToolContract;
import dev.tally.core.execution.Execution;
import dev.tally.core.execution.ExecutionState;
import dev.tally.core.execution.MatchKind;
import dev.tally.core.execution.Transition;
import dev.tally.core.fingerprint.Fingerprint;
import dev.tally.core.mcp.TallyCode;
import dev.tally.core.store.Claim;
import dev.tally.core.store.ExecutionStore;
import dev.tally.core.store.StoreException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * Steps 3–5 of ARCHITECTURE.md §6: claim the match key or act on the execution holding it.
 *
 * <p>Implementation note: every decision is re-derived from the stored record, never from what this
 * instance remembers, so a retry on another replica decides the same way. Waiting (attach) re-runs
 * the decision on every change of the record until it settles or the contract's attach wait runs
 * out.
 */
final class Matcher {
  private static final int MAX_RACES = 8;

  private final Gate gate;
  private final ExecutionStore store;
  private final Clock clock;

  Matcher(Gate gate, ExecutionStore store, Clock clock) {
    this.gate = gate;
    this.store = store;
    this.clock = clock;
  }

  /**
   * Decides for {@code id}. {@code deadline} is null on the first pass; while waiting on a running
   * execution it is the end of the attach wait.
   */
  CompletionStage<Decision> decide(ToolCall call, Identity id, Instant deadline) {
    return decide(call, id, deadline, 0);
  }

  private CompletionStage<Decision> decide(
      ToolCall call, Identity id, Instant deadline, int races) {
    if (races > MAX_RACES) {
      return CompletableFuture.failedFuture(
          new StoreException(StoreException.Code.UNAVAILABLE, "too many concurrent races"));
    }
    Instant now = clock.instant();
    return holderUnderOlderKeys(id, now)
        .thenCompose(
            older -> {
              if (older.isPresent()) {
                return onExisting(call, id, older.get(), deadline, races);
              }
              Execution candidate = gate.newExecution(id, now);
              return store
                  .claim(candidate, now)
                  .whenComplete(
                      (claim, err) -> {
                        if (err != null) {
                          // Nothing is sent for it; if the write landed after all, settle it.
                          gate.claimFailed(candidate);
                        }
                      })
                  .thenCompose(
                      claim -> {
                        if (claim instanceof Claim.Won won) {
                          return CompletableFuture.completedFuture(onWon(won.execution(), id));
                        }
                        return onExisting(call, id, claim.execution(), deadline, races);
                      });
            });
  }

  /**
   * During a key rotation, a retry must still find executions recorded under an older key: by the
   * call's fingerprint or idempotency-key match key as it was under that key (the actor and secret
   * references may be keyed too).
   */
  private CompletionStage<Optional<Execution>> holderUnderOlderKeys(Identity id, Instant now) {
    CompletionStage<Optional<Execution>> found =
        CompletableFuture.completedFuture(Optional.empty());
    Set<String> tried = new HashSet<>();
    tried.add(id.matchKey());
    for (Identity.Alias alias : id.older()) {
      String key = alias.matchKey();
      if (!tried.add(key)) {
        continue;
      }
      found =
          found.thenCompose(
              f ->
                  f.isPresent()
                      ? CompletableFuture.completedFuture(f)
                      : store.findHolder(key, now));
    }
    return found;
  }

  private Decision onWon(Execution e, Identity id) {
    if (e.state() == ExecutionState.PENDING_CONFIRMATION) {
      return new Decision.Respond(TallyCode.PENDING_CONFIRMATION, e);
    }
    return gate.dispatch(e, id.contract(), false);
  }

  private CompletionStage<Decision> onExisting(
      ToolCall call, Identity id, Execution e, Instant deadline, int races) {
    if (id.kind() == MatchKind.IDEMPOTENCY_KEY && !sameIntent(e, id)) {
      return done(new Decision.Respond(TallyCode.IDEMPOTENCY_KEY_REUSED, e));
    }
    ToolContract contract = id.contract();
    Instant now = clock.instant();
    if (withheld(id, e, now)) {
      return done(new Decision.Respond(TallyCode.RESULT_WITHHELD, e));
    }
    switch (e.state()) {
      case ACCEPTED, AUTHORIZED:
        if (e.leaseLapsed(now)) {
          // Its owner stopped before dispatch: the in-progress marker expired; continue it.
          return redispatch(call, id, e, deadline, races, true);
        }
        return attach(call, id, e, deadline);
      case PENDING_CONFIRMATION:
        return gate.confirmations()
            .expireIfDue(e)
            .thenCompose(
                x ->
                    x.state() == ExecutionState.PENDING_CONFIRMATION
                            || x.state() == ExecutionState.EXPIRED
                        ? done(decided(x))
                        : decide(call, id, deadline, races + 1));
      case CANCELLED, EXPIRED:
        return done(decided(e));
      case DISPATCHED:
        if (e.awaitingInput()) {
          return continueAwaitingInput(call, id, e, deadline, races);
        }
        if (e.leaseLapsed(now)) {
          return store
              .transition(Transition.to(e, ExecutionState.OUTCOME_UNKNOWN, now).clearingLease())
              .handle((u, err) -> err == null ? Optional.of(u) : Optional.<Execution>empty())
              .thenCompose(u -> decide(call, id, deadline, races + 1));
        }
        return attach(call, id, e, deadline);
      case COMPLETED, COMPLETED_NOT_DELIVERED, DELIVERED:
        return replay(e);
      case OUTCOME_UNKNOWN:
        return switch (contract.unknownOutcome()) {
          case REDISPATCH -> redispatch(call, id, e, deadline, races, true);
          case REPORT -> done(new Decision.Respond(TallyCode.OUTCOME_UNKNOWN, e));
          case STATUS_CHECK ->
              gate.statusChecks()
                  .settle(e, contract, call)
                  .thenCompose(
                      x ->
                          x.state() == ExecutionState.OUTCOME_UNKNOWN
                              ? done(new Decision.Respond(TallyCode.OUTCOME_UNKNOWN, x))
                              : decide(call, id, deadline, races + 1));
        };
      case REJECTED:
        return done(new Decision.Respond(TallyCode.REJECTED, e));
      default:
        // Released between the claim and now: try again from the top.
        return decide(call, id, deadline, races + 1);
    }
  }

  /** The same decision for a retry of a call that waited for, or met, its person (issue 18). */
  private static Decision decided(Execution e) {
    return switch (e.state()) {
      case CANCELLED -> new Decision.Respond(TallyCode.CONFIRMATION_CANCELLED, e);
      case EXPIRED -> new Decision.Respond(TallyCode.CONFIRMATION_EXPIRED, e);
      case REJECTED -> new Decision.Respond(TallyCode.REJECTED, e);
      default -> new Decision.Respond(TallyCode.PENDING_CONFIRMATION, e);
    };
  }

  /**
   * Whether {@code e} must not be shown to this call: an anonymous caller proved no identity, so it
   * is never attached to, replayed or re-dispatched for an execution that could have been another
   * caller's; it gets the execution's id and state only. A claim whose owner stopped before sending
   * is still continued (it has no content yet).
   */
  private static boolean withheld(Identity id, Execution e, Instant now) {
    if (!ActorResolvers.ANONYMOUS.equals(id.actor())) {
      return false;
    }
    return switch (e.state()) {
      case ACCEPTED, AUTHORIZED, DISPATCHED -> !e.leaseLapsed(now);
      case COMPLETED, COMPLETED_NOT_DELIVERED, DELIVERED, OUTCOME_UNKNOWN -> true;
      default -> false;
    };
  }

  private static boolean sameIntent(Execution e, Identity id) {
    return id.sameFingerprint(Fingerprint.parse(e.fingerprint()));
  }

  private CompletionStage<Decision> replay(Execution e) {
    if (e.result() != null && !e.result().retained()) {
      // An error whose data was too large to keep is still replayed as that error.
      return done(
          e.error() != null
              ? new Decision.Replay(e, null)
              : new Decision.Respond(TallyCode.RESULT_NOT_RETAINED, e));
    }
    if (e.result() == null) {
      // The outcome was a JSON-RPC error; replay it as such.
      return done(new Decision.Replay(e, null));
    }
    return store
        .result(e.id())
        .thenApply(
            bytes ->
                bytes.isPresent() || e.error() != null
                    ? (Decision) new Decision.Replay(e, bytes.orElse(null))
                    : new Decision.Respond(TallyCode.RESULT_NOT_RETAINED, e));
  }

  private CompletionStage<Decision> redispatch(
      ToolCall call, Identity id, Execution e, Instant deadline, int races, boolean continued) {
    Instant now = clock.instant();
    CompletionStage<Execution> moved =
        e.state() == ExecutionState.DISPATCHED
            ? store.touch(e.id(), e.version(), gate.newLease(now), false)
            : store.transition(
                Transition.to(e, ExecutionState.DISPATCHED, now).withLease(gate.newLease(now)));
    return moved
        .handle(
            (next, err) -> {
              if (err == null) {
                return done(gate.dispatch(next, id.contract(), continued));
              }
              if (isStale(err)) {
                return decide(call, id, deadline, races + 1);
              }
              return CompletableFuture.<Decision>failedFuture(err);
            })
        .thenCompose(s -> s);
  }

  private CompletionStage<Decision> continueAwaitingInput(
      ToolCall call, Identity id, Execution e, Instant deadline, int races) {
    return redispatch(call, id, e, deadline, races, true);
  }

  private CompletionStage<Decision> attach(
      ToolCall call, Identity id, Execution e, Instant deadline) {
    if (deadline == null) {
      Instant end = clock.instant().plus(id.contract().attachWait());
      CompletionStage<Decision> settled = waitAndDecide(call, id, e, end);
      return done(new Decision.Attach(e, settled));
    }
    return waitAndDecide(call, id, e, deadline);
  }

  private CompletionStage<Decision> waitAndDecide(
      ToolCall call, Identity id, Execution e, Instant deadline) {
    Duration left = Duration.between(clock.instant(), deadline);
    if (left.isNegative() || left.isZero()) {
      return done(new Decision.Respond(TallyCode.IDEMPOTENCY_IN_PROGRESS, e));
    }
    // Wake at the lease expiry at the latest, so a dead owner is noticed while waiting.
    if (e.lease() != null) {
      Duration toLease = Duration.between(clock.instant(), e.lease().expiresAt());
      if (!toLease.isNegative() && toLease.compareTo(left) < 0) {
        left = toLease.plusMillis(1);
      }
    }
    return store
        .awaitChange(e.id(), e.version(), left)
        .thenCompose(
            latest -> {
              if (latest.isEmpty()) {
                return decide(call, id, deadline);
              }
              Execution now = latest.get();
              if (now.version() == e.version() && !clock.instant().isBefore(deadline)) {
                return done(new Decision.Respond(TallyCode.IDEMPOTENCY_IN_PROGRESS, now));
              }
              return onExistingOrRestart(call, id, now, deadline);
            })
        .exceptionally(Gate::storeFailure);
  }

  private CompletionStage<Decision> onExistingOrRestart(
      ToolCall call, Identity id, Execution latest, Instant deadline) {
    // A retry that attached gets the outcome of the execution it waited on, even when that
    // outcome was delivered to the first caller meanwhile (delivery releases a fingerprint's key
    // for new calls only); otherwise it would become a second execution.
    if (!latest.holdsKey(clock.instant()) && latest.state() != ExecutionState.DELIVERED) {
      return decide(call, id, deadline);
    }
    return onExisting(call, id, latest, deadline, 0);
  }

  private static boolean isStale(Throwable err) {
    Throwable t =
        err instanceof CompletionException && err.getCause() != null ? err.getCause() : err;
    return t instanceof StoreException se
        && (se.code() == StoreException.Code.STALE_VERSION
            || se.code() == StoreException.Code.NOT_FOUND);
  }

  private static CompletionStage<Decision> done(Decision d) {
    return CompletableFuture.completedFuture(d);
  }
}
