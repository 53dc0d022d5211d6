package dev.tally.filter;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.call.ListingLearner;
import dev.tally.core.mcp.RpcOutcome;
import dev.tally.core.mcp.RpcResponseWatcher;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.http.HttpServletResponse;

/**
 * Reads a {@code tools/list} response as it passes to the client and hands its result to core's
 * {@link ListingLearner}. Never changes a byte.
 */
final class LearningTap implements BodyTap, AsyncListener {
  private final int max;
  private final JsonNode id;
  private final ListingLearner learner;
  HttpServletResponse response;
  private RpcResponseWatcher watcher;
  private boolean chosen;

  LearningTap(int max, JsonNode id, ListingLearner learner) {
    this.max = max;
    this.id = id;
    this.learner = learner;
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
      learner.result(r.result());
    }
  }
}
