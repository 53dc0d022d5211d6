package dev.tally.sidecar.internal.upstream;

import dev.tally.core.mcp.TallyError;
import java.time.Duration;

/**
 * Says why an upstream answer stopped before its end: the upstream broke the connection ({@code
 * UPSTREAM_UNAVAILABLE}), or it sent nothing for {@code upstream.timeout} and the connection was
 * closed for it ({@code UPSTREAM_TIMEOUT}, see {@link Upstream}). A relay calls {@link #heard} for
 * every chunk; the cost is one {@link System#nanoTime} per chunk.
 */
public final class BrokenAnswer {
  private final long timeoutNanos;
  private long lastNanos = System.nanoTime();

  /**
   * A watch over an answer whose silence is cut after {@code timeout} ({@code upstream.timeout}).
   */
  public BrokenAnswer(Duration timeout) {
    this.timeoutNanos = timeout.toNanos();
  }

  /** The upstream sent something. */
  public void heard() {
    lastNanos = System.nanoTime();
  }

  /**
   * The error for an answer that broke now. Silence of at least nine tenths of the timeout counts
   * as the read-idle limit (its timer is not exact to the millisecond).
   */
  public TallyError error() {
    boolean silent = System.nanoTime() - lastNanos >= timeoutNanos - timeoutNanos / 10;
    return silent
        ? TallyError.of(
            TallyError.Code.UPSTREAM_TIMEOUT,
            "the upstream MCP server began to answer, then sent nothing more within"
                + " upstream.timeout; the request was abandoned")
        : TallyError.of(
            TallyError.Code.UPSTREAM_UNAVAILABLE,
            "the upstream MCP server broke the connection before it finished answering");
  }
}
