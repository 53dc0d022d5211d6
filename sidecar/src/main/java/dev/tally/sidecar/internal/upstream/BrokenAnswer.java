package dev.tally.sidecar.internal.upstream;

import dev.tally.core.mcp.TallyError;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Times the silence of one upstream answer and says why it stopped before its end: the upstream
 * sent nothing for {@code upstream.timeout} since its response head or its last chunk, and the
 * watch reset the request ({@code UPSTREAM_TIMEOUT}), or the upstream broke the connection ({@code
 * UPSTREAM_UNAVAILABLE}). The limit belongs to the request, never to the connection it travels on:
 * how long a pooled connection sat idle before the request says nothing about this answer.
 *
 * <p>A relay calls {@link #heard} for every chunk (one {@link System#nanoTime} each) and {@link
 * #done} when the response ended or broke. Used on the response's event loop only.
 *
 * <p>Implementation note: at most one timer per answer, not one per chunk: when it fires it
 * compares the time of the last chunk with the limit and, if the answer was not silent that long,
 * sets itself again for the rest (as Netty's {@code IdleStateHandler} does). It is set only once
 * the event loop has handled the bytes it already read: an answer that ended in the read that
 * brought its head (most of them) never costs a timer.
 */
public final class BrokenAnswer {
  private final long timeoutNanos;
  private final Vertx vertx;
  private HttpClientRequest request;
  private long lastNanos = System.nanoTime();
  private long timer = -1;
  private boolean cut;
  private boolean done;

  private BrokenAnswer(Context context, long timeoutNanos, HttpClientRequest request) {
    this.timeoutNanos = timeoutNanos;
    this.vertx = context == null ? null : context.owner();
    this.request = request;
    if (context != null && timeoutNanos > 0) {
      // Armed after the bytes already read were handled: most answers end in the read that
      // brought their head, and then need no timer at all.
      context.runOnContext(v -> later());
    }
  }

  /**
   * Watches the answer {@code resp} from now: after {@code timeout} ({@code upstream.timeout})
   * without a byte its request is reset. Call on the response's event loop.
   */
  public static BrokenAnswer watch(HttpClientResponse resp, Duration timeout) {
    return new BrokenAnswer(Vertx.currentContext(), timeout.toNanos(), resp.request());
  }

  /**
   * An answer whose silence has no limit (the session's standalone GET stream, which may rightly
   * stay quiet for hours); it only says why it broke.
   */
  public static BrokenAnswer unlimited() {
    return new BrokenAnswer(null, 0, null);
  }

  /** The upstream sent something. */
  public void heard() {
    lastNanos = System.nanoTime();
  }

  /**
   * From now on the answer arrives as the response to {@code next} (a reconnection): its silence is
   * timed from now, the timer kept.
   */
  public void continuedBy(HttpClientRequest next) {
    request = next;
    lastNanos = System.nanoTime();
    if (done) {
      done = false;
      cut = false;
      schedule(timeoutNanos);
    }
  }

  /** The answer ended or broke: its silence no longer matters. */
  public void done() {
    done = true;
    if (timer >= 0) {
      vertx.cancelTimer(timer);
      timer = -1;
    }
  }

  /** Whether this watch cut the answer for its silence. */
  public boolean cut() {
    return cut;
  }

  /** The error for an answer that broke now. */
  public TallyError error() {
    return cut
        ? TallyError.of(
            TallyError.Code.UPSTREAM_TIMEOUT,
            "the upstream MCP server began to answer, then sent nothing more within"
                + " upstream.timeout; the request was abandoned")
        : TallyError.of(
            TallyError.Code.UPSTREAM_UNAVAILABLE,
            "the upstream MCP server broke the connection before it finished answering");
  }

  private void later() {
    if (!done && timer < 0) {
      schedule(Math.max(1, timeoutNanos - (System.nanoTime() - lastNanos)));
    }
  }

  private void schedule(long inNanos) {
    if (vertx == null || timeoutNanos <= 0) {
      return;
    }
    long ms = Math.max(1, TimeUnit.NANOSECONDS.toMillis(inNanos + 999_999));
    timer = vertx.setTimer(ms, t -> check());
  }

  private void check() {
    timer = -1;
    if (done) {
      return;
    }
    long silent = System.nanoTime() - lastNanos;
    if (silent < timeoutNanos) {
      schedule(timeoutNanos - silent);
      return;
    }
    cut = true;
    done = true;
    request.reset();
  }
}
