package dev.tally.filter;

import dev.tally.core.call.Delivery;
import dev.tally.core.call.DispatchRecorder;
import dev.tally.core.mcp.RpcOutcome;
import dev.tally.core.mcp.RpcResponseWatcher;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.http.HttpServletResponse;
import java.util.concurrent.CompletionStage;

/**
 * Feeds core's {@link DispatchRecorder} what passes through the response of one dispatched call:
 * the JSON-RPC answer as soon as it is seen, the end of the exchange, and whether the answer
 * reached the client (delivered, or not when a write or flush failed). What each observation
 * records is the recorder's rule, the same as in the sidecar.
 *
 * <p>Thread-safe: the servlet may write from any thread; the container ends the exchange on
 * another.
 */
final class DispatchObserver implements BodyTap, AsyncListener {
  private final DispatchRecorder recorder;
  private final int maxResponseBytes;
  private HttpServletResponse response;
  private RpcResponseWatcher watcher;
  private boolean watcherChosen;
  private CompletionStage<Delivery> answered;
  private boolean clientGone;
  private boolean deliveryReported;
  private boolean finished;

  DispatchObserver(DispatchRecorder recorder, int maxResponseBytes) {
    this.recorder = recorder;
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
      recorder.head(response.getStatus());
      watcher =
          RpcResponseWatcher.forContentType(
              response.getContentType(), recorder.requestId(), maxResponseBytes, this::onOutcome);
    }
    if (watcher != null) {
      watcher.feed(b, off, len);
    }
  }

  @Override
  public synchronized void writeFailed() {
    clientGone = true;
    if (answered != null) {
      reportDelivery();
    }
  }

  @Override
  public synchronized void flushed(boolean ok) {
    if (!ok) {
      clientGone = true;
    }
    if (answered != null) {
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
    if (answered != null) {
      reportDelivery();
      return;
    }
    recorder.head(response.getStatus());
    if (failure != null) {
      recorder.broke(
          "the servlet failed before answering (" + failure.getClass().getSimpleName() + ")");
    } else if (watcher != null && watcher.overflowed()) {
      recorder.broke("the response exceeded filter.maxResponseBytes before the result was seen");
    } else if (connectionFailed) {
      recorder.broke("the client connection failed before the result was seen");
    } else {
      recorder.ended();
    }
  }

  /**
   * The answer goes to the client only once its outcome is durable: a crash between the two would
   * otherwise leave an answered call recorded as unknown (or re-dispatched, for a keyed tool).
   * Bounded; a store that does not answer in time lets the answer through (the lease reaper settles
   * the record) rather than holding the client forever.
   */
  @Override
  public void beforeWrite() {
    CompletionStage<Delivery> stored;
    synchronized (this) {
      stored = answered;
    }
    if (stored == null) {
      return;
    }
    try {
      stored.toCompletableFuture().get(DURABLE_WAIT_MS, java.util.concurrent.TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      // Let the answer through; the record is settled by the store or its lease reaper.
    }
  }

  /** How long an answer waits for its outcome to be durable before it goes anyway. */
  static final long DURABLE_WAIT_MS = 10_000;

  synchronized boolean outcomeSeen() {
    return answered != null;
  }

  private void onOutcome(RpcOutcome o) {
    recorder.head(response.getStatus());
    answered = recorder.answer(o);
    if (answered != null && clientGone) {
      reportDelivery();
    }
  }

  private void reportDelivery() {
    if (deliveryReported) {
      return;
    }
    deliveryReported = true;
    boolean ok = !clientGone;
    answered.thenAccept(d -> d.written(ok));
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
