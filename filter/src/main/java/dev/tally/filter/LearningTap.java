package dev.tally.filter;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tally.core.contract.ContractRegistry;
import dev.tally.core.mcp.RpcOutcome;
import dev.tally.core.mcp.RpcResponseWatcher;
import dev.tally.core.mcp.ToolListing;
import dev.tally.core.mcp.ToolParamHeaders;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * Reads a {@code tools/list} response as it passes to the client and hands its result to {@link
 * ToolListing#learn}: tool annotations become contract hints, {@code x-mcp-header} parameters are
 * checked on later calls. Never changes a byte.
 */
final class LearningTap implements BodyTap, AsyncListener {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private final int max;
  private final JsonNode id;
  private final ContractRegistry contracts;
  private final ToolParamHeaders paramHeaders;
  HttpServletResponse response;
  private RpcResponseWatcher watcher;
  private boolean chosen;

  LearningTap(int max, JsonNode id, ContractRegistry contracts, ToolParamHeaders paramHeaders) {
    this.max = max;
    this.id = id;
    this.contracts = contracts;
    this.paramHeaders = paramHeaders;
  }

  @Override
  public synchronized void bytes(byte[] b, int off, int len) {
    if (!chosen) {
      chosen = true;
      watcher = RpcResponseWatcher.forContentType(response.getContentType(), id, max, this::learn);
    }
    if (watcher != null) {
      watcher.feed(b, off, len);
    }
  }

  @Override
  public void writeFailed() {}

  @Override
  public void flushed(boolean ok) {}

  synchronized void end() {
    if (watcher != null) {
      watcher.end();
      watcher = null;
    }
  }

  @Override
  public void onComplete(AsyncEvent event) {
    end();
  }

  @Override
  public void onTimeout(AsyncEvent event) {
    end();
  }

  @Override
  public void onError(AsyncEvent event) {
    end();
  }

  @Override
  public void onStartAsync(AsyncEvent event) {
    if (event.getAsyncContext() != null) {
      event.getAsyncContext().addListener(this);
    }
  }

  private void learn(RpcOutcome o) {
    if (o instanceof RpcOutcome.Result r) {
      try {
        ToolListing.learn(MAPPER.readTree(r.result()), contracts, paramHeaders);
      } catch (IOException e) {
        // Not a tools/list result Tally understands: nothing learned.
      }
    }
  }
}
