package dev.tally.core.gate;

import dev.tally.core.contract.ToolContract;
import dev.tally.core.execution.Execution;
import dev.tally.core.mcp.TallyCode;
import dev.tally.core.mcp.TallyError;
import java.util.concurrent.CompletionStage;

/**
 * What the {@link Gate} decided for one {@code tools/call} (ARCHITECTURE.md §6). Normal outcomes
 * are values, never exceptions; the adapter renders each with {@link
 * dev.tally.core.mcp.ToolResults}.
 */
public sealed interface Decision {

  /** A read-only tool: forward untouched, record nothing. */
  record PassThrough(ToolContract contract) implements Decision {}

  /**
   * Forward upstream now. {@code dispatched} is already durable. The adapter must report what
   * happened through {@link InFlight}.
   */
  record Dispatch(InFlight inFlight) implements Decision {}

  /** A completed execution matched: answer with its stored result under the new request id. */
  record Replay(Execution execution, byte[] result) implements Decision {}

  /**
   * A running execution matched: wait for {@code settled} (bounded by the contract's attach wait);
   * it completes with a {@link Replay}, a {@link Respond} or another terminal decision.
   */
  record Attach(Execution execution, CompletionStage<Decision> settled) implements Decision {}

  /**
   * An explicit tool result ({@code isError: true}) describing the execution: see {@link
   * TallyCode}.
   */
  record Respond(TallyCode code, Execution execution) implements Decision {}

  /**
   * The call is refused at the protocol level (JSON-RPC error, HTTP status): see {@link
   * TallyError}.
   */
  record Refuse(TallyError error) implements Decision {}
}
