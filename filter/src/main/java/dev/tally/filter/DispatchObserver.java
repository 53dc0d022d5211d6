package dev.tally.filter;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.gate.InFlight;
import dev.tally.core.mcp.RpcOutcome;
import dev.tally.core.mcp.RpcResponseWatcher;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.http.HttpServletResponse;

/**
 * Reports to the gate what became of one dispatched call, from what passes through its response:
 * the JSON-RPC answer as soon as it is seen (completed, error, input required), then whether it
 * reached the client (delivered, or not delivered when a write or flush failed). A call that ends
 * without an answer is reported as failed before any effect (HTTP 4xx, which the MCP SDK sends only
 * before a tool runs) or as an unknown outcome.
 *
 * <p>Thread-safe: the servlet may write from any thread; the container ends the exchange on
 * another.
 */
final class DispatchObserver implements BodyTap, AsyncListener {
  private final InFlight inFlight;
  private final JsonNode requestId;
  private final int maxResponseBytes;
  private HttpServletResponse response;
  private RpcResponseWatcher watcher;
  private boolean watcherChosen;
  private RpcOutcome outcome;
  private boolean clientGone;
  private boolean deliveryReported;
  private boolean finished;

  DispatchObserver(InFlight inFlight, JsonNode requestId, int maxResponseBytes) {
    this.inFlight = inFlight;
    this.requestId = requestId;
    this.maxResponseBytes = maxResponseBytes;
  }

  /** The response whose status and content type decide how the body is read. */
  void watch(HttpServletResponse response) {
    this.response = response;
  }

  @Override
  public synchronized void bytes(byte[] b, int off, int len) {
    if (!watcherChosen) {
      watcherChosen = true;
      watcher =
          RpcResponseWatcher.forContentType(
              response.getContentType(), requestId, maxResponseBytes, this::onOutcome);
    }
    if (watcher != null) {
      watcher.feed(b, off, len);
    }
  }

  @Override
  public synchronized void writeFailed() {
    clientGone = true;
    if (outcome != null) {
      reportDelivery();
    }
  }

  @Override
  public synchronized void flushed(boolean ok) {
    if (!ok) {
      clientGone = true;
    }
    if (outcome != null) {
      reportDelivery();
    }
  }

  /**
   * The exchange ended. {@code failure} is what the servlet threw, if anything; {@code
   * connectionFailed} says the container saw the connection fail.
   */
  synchronized void finish(Throwable failure, boolean connectionFailed) {
    if (finished) {
      return;
    }
    finished = true;
    if (watcher != null) {
      watcher.end();
    }
    if (connectionFailed) {
      clientGone = true;
    }
    if (outcome != null) {
      reportDelivery();
      return;
    }
    if (failure != null) {
      inFlight.unknown(
          "the servlet failed before answering (" + failure.getClass().getSimpleName() + ")");
    } else if (watcher != null && watcher.overflowed()) {
      inFlight.unknown("the response exceeded filter.maxResponseBytes before the result was seen");
    } else if (!connectionFailed && response.getStatus() >= 400 && response.getStatus() < 500) {
      inFlight.failedBeforeEffect(
          response.getStatus(), "HTTP " + response.getStatus() + " without a JSON-RPC response");
    } else {
      inFlight.unknown(
          "no JSON-RPC response to the call was seen (HTTP " + response.getStatus() + ")");
    }
  }

  synchronized boolean outcomeSeen() {
    return outcome != null;
  }

  private void onOutcome(RpcOutcome o) {
    outcome = o;
    int status = response.getStatus();
    if (o instanceof RpcOutcome.Result r) {
      if (r.inputRequired()) {
        inFlight.inputRequired(status);
      } else {
        inFlight.completed(status, r.result(), r.isError());
      }
    } else if (o instanceof RpcOutcome.Error e) {
      inFlight.rpcError(status, e.error());
    }
    if (clientGone) {
      reportDelivery();
    }
  }

  private void reportDelivery() {
    if (deliveryReported) {
      return;
    }
    deliveryReported = true;
    if (clientGone) {
      inFlight.notDelivered();
    } else {
      inFlight.delivered();
    }
  }

  @Override
  public void onComplete(AsyncEvent event) {
    finish(null, false);
  }

  @Override
  public void onTimeout(AsyncEvent event) {
    finish(null, true);
  }

  @Override
  public void onError(AsyncEvent event) {
    finish(null, true);
  }

  @Override
  public void onStartAsync(AsyncEvent event) {
    if (event.getAsyncContext() != null) {
      event.getAsyncContext().addListener(this);
    }
  }
}
