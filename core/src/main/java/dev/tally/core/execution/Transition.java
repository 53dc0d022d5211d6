package dev.tally.core.execution;

import java.time.Instant;
import java.util.Objects;

/**
 * A request to move an execution to {@code to}, applied by a store as compare-and-set on {@code
 * expectedVersion}. Optional fields ({@code null}) leave the record's value unchanged.
 */
public record Transition(
    ExecutionId id,
    long expectedVersion,
    ExecutionState to,
    Instant at,
    Lease lease,
    boolean clearLease,
    Integer targetStatus,
    RpcError error,
    ResultRef result,
    byte[] resultBytes,
    Instant retainUntil,
    boolean awaitingInput,
    Instant holdUntil) {

  public Transition {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(to, "to");
    Objects.requireNonNull(at, "at");
  }

  /** A plain transition with no detail. */
  public static Transition to(Execution e, ExecutionState to, Instant at) {
    return new Transition(
        e.id(), e.version(), to, at, null, false, null, null, null, null, null, false, null);
  }

  public Transition withLease(Lease l) {
    return new Transition(
        id,
        expectedVersion,
        to,
        at,
        l,
        false,
        targetStatus,
        error,
        result,
        resultBytes,
        retainUntil,
        awaitingInput,
        holdUntil);
  }

  public Transition clearingLease() {
    return new Transition(
        id,
        expectedVersion,
        to,
        at,
        null,
        true,
        targetStatus,
        error,
        result,
        resultBytes,
        retainUntil,
        awaitingInput,
        holdUntil);
  }

  public Transition withOutcome(Integer status, RpcError err) {
    return new Transition(
        id,
        expectedVersion,
        to,
        at,
        lease,
        clearLease,
        status,
        err,
        result,
        resultBytes,
        retainUntil,
        awaitingInput,
        holdUntil);
  }

  /**
   * Attaches result bytes (the JSON-RPC {@code result} object). The store decides whether they fit
   * its cap and fills in {@link ResultRef#retained()}.
   */
  public Transition withResult(byte[] bytes, boolean isError) {
    return new Transition(
        id,
        expectedVersion,
        to,
        at,
        lease,
        clearLease,
        targetStatus,
        error,
        new ResultRef(bytes.length, true, isError),
        bytes,
        retainUntil,
        awaitingInput,
        holdUntil);
  }

  public Transition withRetainUntil(Instant until) {
    return new Transition(
        id,
        expectedVersion,
        to,
        at,
        lease,
        clearLease,
        targetStatus,
        error,
        result,
        resultBytes,
        until,
        awaitingInput,
        holdUntil);
  }

  public Transition awaitingInput(boolean awaiting) {
    return new Transition(
        id,
        expectedVersion,
        to,
        at,
        lease,
        clearLease,
        targetStatus,
        error,
        result,
        resultBytes,
        retainUntil,
        awaiting,
        holdUntil);
  }

  /**
   * This transition as a store whose result cap is {@code maxResultBytes} records it: attached
   * bytes are kept only if they fit, and the result reference says whether they were; a reference
   * that claims retained bytes while none are attached and the store holds none ({@code
   * storeHasBytes} false) is marked not retained. Every store applies exactly this rule.
   */
  public Transition asStored(int maxResultBytes, boolean storeHasBytes) {
    if (resultBytes != null) {
      boolean isError = result != null && result.isError();
      return withResultRef(
          new ResultRef(resultBytes.length, resultBytes.length <= maxResultBytes, isError));
    }
    if (result != null && result.retained() && !storeHasBytes) {
      return withResultRef(new ResultRef(result.bytes(), false, result.isError()));
    }
    return this;
  }

  private Transition withResultRef(ResultRef ref) {
    return new Transition(
        id,
        expectedVersion,
        to,
        at,
        lease,
        clearLease,
        targetStatus,
        error,
        ref,
        resultBytes,
        retainUntil,
        awaitingInput,
        holdUntil);
  }

  /**
   * Shortens how long the record holds its match key to {@code until} (a store keeps the earlier of
   * this and the record's current {@code holdUntil}: a hold never grows back).
   */
  public Transition withHoldUntil(Instant until) {
    return new Transition(
        id,
        expectedVersion,
        to,
        at,
        lease,
        clearLease,
        targetStatus,
        error,
        result,
        resultBytes,
        retainUntil,
        awaitingInput,
        until);
  }

  @Override
  public boolean equals(Object o) {
    return this == o;
  }

  @Override
  public int hashCode() {
    return System.identityHashCode(this);
  }

  @Override
  public String toString() {
    return "Transition[" + id + " v" + expectedVersion + " -> " + to.wireName() + "]";
  }
}
