package dev.tally.core.call;

import dev.tally.core.contract.ContractRegistry;
import dev.tally.core.execution.Execution;
import dev.tally.core.gate.Decision;
import dev.tally.core.gate.Gate;
import dev.tally.core.gate.ToolCall;
import dev.tally.core.mcp.Headers;
import dev.tally.core.observe.Telemetry;
import java.util.concurrent.CompletionStage;

/**
 * What the call pipeline needs from the {@link Gate}: production passes the gate itself ({@link
 * #of(Gate)}); transport tests pass scripted decisions.
 */
public interface Admission {
  /** Decides one {@code tools/call}; never completes exceptionally. */
  CompletionStage<Decision> admit(ToolCall call);

  /** Where learned tool annotations go, and what each tool's contract is. */
  ContractRegistry contracts();

  /** Whether calls of {@code tool} pass through unrecorded (see {@link Gate#passesThrough}). */
  default boolean passesThrough(String tool) {
    return contracts().resolve(tool).isReadOnly();
  }

  /** Executions the gate is driving (for drain and observability). */
  default int inFlight() {
    return 0;
  }

  /** A replay of {@code e} was written to its client (see {@link Gate#replayDelivered}). */
  default void replayDelivered(Execution e) {}

  /**
   * The upstream's answer to {@code initialize} assigned {@code mcpSessionId}; for the sessions
   * journal (see {@link Gate#sessionStarted}).
   */
  default void sessionStarted(
      String mcpSessionId,
      Headers requestHeaders,
      String clientName,
      String clientVersion,
      String protocolVersion) {}

  /** Pending confirmations, or {@code null} when calls cannot wait for a person here. */
  default dev.tally.core.gate.Confirmations confirmations() {
    return null;
  }

  /**
   * Whether {@code tool} is listed in {@code tools/list} to the caller with {@code headers} (write
   * control; see {@link Gate#lists}).
   */
  default boolean lists(String tool, Headers headers) {
    return true;
  }

  /**
   * Whether the caller with {@code headers} sees every tool ({@link Gate#listsEverything}): its
   * listing then passes without being parsed.
   */
  default boolean listsEverything(Headers headers) {
    return true;
  }

  /**
   * Runs {@code r} whenever which tools callers may see changed (the write switch, issue 18), so an
   * adapter can send {@code notifications/tools/list_changed}; by default never.
   */
  default void onToolsChanged(Runnable r) {}

  /** See {@link Gate#ownerOf}; {@code null} (unbound) unless a gate answers. */
  default String ownerOf(dev.tally.core.mcp.Headers headers) {
    return null;
  }

  /** See {@link Gate#sameOwner}. */
  default boolean sameOwner(String owner, dev.tally.core.mcp.Headers headers) {
    return true;
  }

  /**
   * Where the intake keeps the tools' {@code x-mcp-header} parameters: the gate's ({@link
   * Gate#paramHeaders}), so that confirmed calls mirror them; {@code null} (the intake keeps its
   * own) for scripted admissions.
   */
  default dev.tally.core.mcp.ToolParamHeaders paramHeaders() {
    return null;
  }

  /** Where the calls' spans and metrics go (default {@link Telemetry#NONE}). */
  default Telemetry telemetry() {
    return Telemetry.NONE;
  }

  /** The real gate. */
  static Admission of(Gate gate) {
    return new Admission() {
      @Override
      public Telemetry telemetry() {
        return gate.telemetry();
      }

      @Override
      public CompletionStage<Decision> admit(ToolCall call) {
        return gate.admit(call);
      }

      @Override
      public ContractRegistry contracts() {
        return gate.contracts();
      }

      @Override
      public boolean passesThrough(String tool) {
        return gate.passesThrough(tool);
      }

      @Override
      public int inFlight() {
        return gate.inFlight();
      }

      @Override
      public void onToolsChanged(Runnable r) {
        gate.writes().writeSwitch().onChange(r);
      }

      @Override
      public boolean lists(String tool, Headers headers) {
        return gate.lists(tool, headers);
      }

      @Override
      public boolean listsEverything(Headers headers) {
        return gate.listsEverything(headers);
      }

      @Override
      public dev.tally.core.mcp.ToolParamHeaders paramHeaders() {
        return gate.paramHeaders();
      }

      @Override
      public dev.tally.core.gate.Confirmations confirmations() {
        return gate.confirmations();
      }

      @Override
      public String ownerOf(dev.tally.core.mcp.Headers headers) {
        return gate.ownerOf(headers);
      }

      @Override
      public boolean sameOwner(String owner, dev.tally.core.mcp.Headers headers) {
        return gate.sameOwner(owner, headers);
      }

      @Override
      public void replayDelivered(Execution e) {
        gate.replayDelivered(e);
      }

      @Override
      public void sessionStarted(
          String mcpSessionId,
          Headers requestHeaders,
          String clientName,
          String clientVersion,
          String protocolVersion) {
        gate.sessionStarted(
            mcpSessionId, requestHeaders, clientName, clientVersion, protocolVersion);
      }
    };
  }
}
