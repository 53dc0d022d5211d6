package dev.tally.core.execution;

/** A caller asked for a transition that ARCHITECTURE.md §5 does not allow: a bug, never input. */
public final class IllegalTransitionException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  private final ExecutionState from;
  private final ExecutionState to;

  public IllegalTransitionException(ExecutionState from, ExecutionState to) {
    super("illegal execution transition " + from.wireName() + " -> " + to.wireName());
    this.from = from;
    this.to = to;
  }

  public ExecutionState from() {
    return from;
  }

  public ExecutionState to() {
    return to;
  }
}
