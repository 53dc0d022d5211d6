package dev.tally.core.call;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.contract.ContractRegistry;
import dev.tally.core.mcp.RpcOutcome;
import dev.tally.core.mcp.RpcResponseWatcher;
import dev.tally.core.mcp.ToolListing;
import dev.tally.core.mcp.ToolParamHeaders;
import dev.tally.core.mcp.WireJson;
import java.io.IOException;
import java.util.Arrays;

/**
 * Learns from {@code tools/list} answers as they pass to a client: tool annotations become contract
 * hints, {@code x-mcp-header} parameters are checked on later calls ({@link ToolListing#learn}). An
 * unchanged listing (clients list tools often; the answer rarely changes) is not parsed again.
 * Never changes a byte of what the client gets. Thread-safe.
 */
public final class ListingLearner {
  private final WireJson json;
  private final ContractRegistry contracts;
  private final ToolParamHeaders params;
  private byte[] last;

  ListingLearner(WireJson json, ContractRegistry contracts, ToolParamHeaders params) {
    this.json = json;
    this.contracts = contracts;
    this.params = params;
  }

  /** The {@code x-mcp-header} parameters learned so far. */
  public ToolParamHeaders params() {
    return params;
  }

  /**
   * One message of the response to the {@code tools/list} request {@code requestId}: learns from it
   * when it is that request's result. Returns whether it was.
   */
  public boolean message(byte[] message, JsonNode requestId) {
    return RpcResponseWatcher.outcomeOf(message, requestId) instanceof RpcOutcome.Result r
        && result(r.result());
  }

  /** Learns from a {@code tools/list} {@code result} object; true (also when unchanged). */
  public boolean result(byte[] result) {
    synchronized (this) {
      if (last != null && Arrays.equals(last, result)) {
        return true;
      }
    }
    byte[] learned = result;
    try {
      ToolListing.learn(json.strict().readTree(result), contracts, params);
    } catch (IOException | RuntimeException e) {
      // A malformed listing teaches nothing; the client still gets it as the upstream sent it.
      learned = null;
    }
    synchronized (this) {
      last = learned;
    }
    return true;
  }
}
