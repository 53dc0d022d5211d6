package dev.tally.sidecar.internal.upstream;

import io.vertx.core.Future;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientConnection;
import io.vertx.core.http.HttpConnectOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Keep-alive HTTP/1.1 connections to the upstream owned by one event loop, handed out without the
 * Vert.x pool: a connection is free when it has no request in flight. Used only on its loop's
 * thread (no locking); {@link #acquire()} returns {@code null} when called elsewhere, or when every
 * connection is busy and no more may be opened, and the caller then uses the pooled client.
 *
 * <p>Implementation note: the pooled {@code HttpClient.request} acquires a lease through a
 * combiner-executor pool and builds a new context per request, ~10% of a pass-through request's
 * event-loop time (JFR, bench/README.md "Sidecar load"). On one loop with HTTP/1.1 a connection's
 * own stream count ({@code activeStreams() == 0}) says whether it is free, so a round-robin scan
 * replaces the pool. Connections idle longer than the keep-alive timeout are closed instead of
 * reused (as the pool does), to avoid racing the upstream closing them.
 */
final class UpstreamConnections {
  private final HttpClientAgent client;
  private final HttpConnectOptions connect;
  private final int max;
  private final long keepAliveNanos;
  private final LongSupplier nanoTime;
  private final Thread loop;
  private final List<Entry> open = new ArrayList<>();
  private int connecting;
  private int next;
  private boolean pruned = true;

  private static final class Entry {
    final HttpClientConnection conn;
    long lastUsed;
    boolean closed;

    Entry(HttpClientConnection conn, long now) {
      this.conn = conn;
      this.lastUsed = now;
    }
  }

  private UpstreamConnections(
      HttpClientAgent client,
      HttpConnectOptions connect,
      int max,
      long keepAliveNanos,
      LongSupplier nanoTime,
      Thread loop) {
    this.client = client;
    this.connect = connect;
    this.max = max;
    this.keepAliveNanos = keepAliveNanos;
    this.nanoTime = nanoTime;
    this.loop = loop;
  }

  /**
   * Connections owned by the calling thread (an event loop), at most {@code max} of them, each
   * reused only within {@code keepAliveNanos} of its last use.
   */
  static UpstreamConnections create(
      HttpClientAgent client,
      HttpConnectOptions connect,
      int max,
      long keepAliveNanos,
      LongSupplier nanoTime) {
    return new UpstreamConnections(
        client, connect, max, keepAliveNanos, nanoTime, Thread.currentThread());
  }

  /**
   * A free connection (a new one if none is free and fewer than {@code max} are open), or {@code
   * null}: not on the owning loop, or all {@code max} are busy.
   */
  Future<HttpClientConnection> acquire() {
    if (Thread.currentThread() != loop) {
      return null;
    }
    if (!pruned) {
      open.removeIf(e -> e.closed);
      pruned = true;
    }
    long now = nanoTime.getAsLong();
    int n = open.size();
    if (next >= n) {
      // Closed connections were pruned since the last scan: restart the round robin.
      next = 0;
    }
    for (int k = 0; k < n; k++) {
      int i = next + k < n ? next + k : next + k - n;
      Entry e = open.get(i);
      if (e.closed || e.conn.activeStreams() != 0) {
        continue;
      }
      if (now - e.lastUsed > keepAliveNanos) {
        closed(e);
        e.conn.close();
        continue;
      }
      e.lastUsed = now;
      next = i + 1 < n ? i + 1 : 0;
      return Future.succeededFuture(e.conn);
    }
    if (n + connecting >= max) {
      return null;
    }
    connecting++;
    return client
        .connect(connect)
        .andThen(ar -> connecting--)
        .map(
            conn -> {
              Entry e = new Entry(conn, nanoTime.getAsLong());
              conn.closeHandler(v -> closed(e));
              open.add(e);
              return conn;
            });
  }

  /** Closes every connection; call on the owning loop. */
  Future<Void> closeAll() {
    List<Future<Void>> closing = new ArrayList<>();
    for (Entry e : open) {
      if (!e.closed) {
        closed(e);
        closing.add(e.conn.close());
      }
    }
    return Future.join(closing).mapEmpty();
  }

  private void closed(Entry e) {
    e.closed = true;
    pruned = false;
  }

  /** Connections open or in use (for tests). */
  int size() {
    int n = 0;
    for (Entry e : open) {
      n += e.closed ? 0 : 1;
    }
    return n;
  }
}
