package dev.tally.core.call;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.contract.ContractRegistry;
import dev.tally.core.mcp.RpcOutcome;
import dev.tally.core.mcp.RpcResponseWatcher;
import dev.tally.core.mcp.ToolListing;
import dev.tally.core.mcp.ToolParamHeaders;
import dev.tally.core.mcp.WireJson;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Learns from {@code tools/list} answers: tool annotations become contract hints, {@code
 * x-mcp-header} parameters are checked on later calls ({@link ToolListing#learn}), and the names
 * listed are known (a call of a name never listed may make the {@link ToolCatalogue} list again).
 * Answers on their way to a client are read as they pass ({@link #message}, {@link #result}: what
 * they list is added); the catalogue's own complete listing replaces what is known ({@link
 * #replace}). An unchanged client listing (clients list tools often; the answer rarely changes) is
 * not parsed again. Never changes a byte of what a client gets. Thread-safe.
 */
public final class ListingLearner {
  private final WireJson json;
  private final ContractRegistry contracts;
  private final ToolParamHeaders params;
  private final Map<String, ToolListing.Tool> known = new LinkedHashMap<>();
  // The names in known, read on every call without the lock (the hot path of two event loops).
  private volatile Set<String> names = Set.of();
  private volatile Runnable onChange = () -> {};
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

  /** Whether {@code tool} was listed (by the upstream to anyone, or in the kept catalogue). */
  public boolean knows(String tool) {
    return names.contains(tool);
  }

  /** What is known of every listed tool, in the order first listed. */
  public synchronized List<ToolListing.Tool> tools() {
    return List.copyOf(known.values());
  }

  /** {@code r} runs (on the learning thread) whenever what is known changed. */
  void onChange(Runnable r) {
    this.onChange = Objects.requireNonNull(r, "onChange");
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
    List<ToolListing.Tool> tools = parse(result);
    synchronized (this) {
      last = tools == null ? null : result;
    }
    if (tools != null && !tools.isEmpty()) {
      learn(tools, false);
    }
    return true;
  }

  /**
   * The catalogue's own complete listing, every page's {@code result} object: what it lists is
   * known from now on, a tool it no longer lists is forgotten. A page that cannot be read teaches
   * nothing and forgets nothing.
   */
  void replace(List<byte[]> pages) {
    List<ToolListing.Tool> all = new ArrayList<>();
    for (byte[] page : pages) {
      List<ToolListing.Tool> tools = parse(page);
      if (tools == null) {
        return;
      }
      all.addAll(tools);
    }
    learn(all, true);
  }

  /** What a kept catalogue says (before anything was listed since the start). */
  void restore(List<ToolListing.Tool> tools) {
    learn(tools, false);
  }

  private List<ToolListing.Tool> parse(byte[] result) {
    try {
      return ToolListing.parse(json.strict().readTree(result));
    } catch (IOException | RuntimeException e) {
      // A malformed listing teaches nothing; the client still gets it as the upstream sent it.
      return null;
    }
  }

  private void learn(List<ToolListing.Tool> tools, boolean complete) {
    boolean changed = false;
    synchronized (this) {
      Set<String> listed = new HashSet<>();
      for (ToolListing.Tool t : tools) {
        listed.add(t.name());
        ToolListing.Tool before = known.put(t.name(), t);
        changed |= !t.equals(before);
        contracts.learnAnnotations(t.name(), t.readOnlyHint(), t.idempotentHint());
        params.put(t.name(), t.paramHeaders());
      }
      if (complete) {
        for (var it = known.keySet().iterator(); it.hasNext(); ) {
          String name = it.next();
          if (!listed.contains(name)) {
            it.remove();
            contracts.learnAnnotations(name, null, null);
            params.put(name, Map.of());
            changed = true;
          }
        }
      }
      if (changed) {
        names = Set.copyOf(known.keySet());
      }
    }
    if (changed) {
      onChange.run();
    }
  }
}
