package dev.tally.sidecar.internal.http;

import dev.tally.sidecar.ClientLimits;
import dev.tally.sidecar.LimitHits;
import dev.tally.sidecar.LimitHits.Limit;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.net.SocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Connection caps and the timers of one port ({@link ClientLimits}): at accept, a connection over
 * {@code maxConnections} or over its address's {@code maxConnectionsPerClient} is closed at once; a
 * connection with no request in progress is closed when {@code headerTimeout} (a new connection) or
 * {@code idleTimeout} (after a response) passes without a request head. A connection whose client
 * stopped reading its last answer is closed too, discarding the unsent bytes, once the client took
 * none of them for a whole {@code idleTimeout} (Vert.x's own close would wait for them for ever:
 * {@link Unsent}). Shared by every listener instance of the port; each connection's own state is
 * touched only on its event loop.
 */
public final class ConnectionGuard {
  private final ClientLimits limits;
  private final LimitHits hits;
  private final LimitHits.Port port;
  private final AtomicInteger open = new AtomicInteger();
  private final Map<String, AtomicInteger> perClient = new ConcurrentHashMap<>();
  private final Map<HttpConnection, State> states = new ConcurrentHashMap<>();

  /**
   * One connection: requests in progress, and the timer waiting for the next request head. The
   * timer is lazy: a request that starts does not cancel it and one that ends only moves {@code
   * deadline}; when the timer fires it closes the connection if that is still idle and past its
   * deadline, else sets itself again for the rest (as Netty's {@code IdleStateHandler} does).
   * Setting and cancelling a Vert.x timer on every request of a keep-alive connection cost ~4 % of
   * a loaded sidecar's CPU.
   */
  private static final class State {
    final Vertx vertx;
    int active;
    boolean closing;
    long timer = -1;
    long timerAt;
    long deadline;
    Limit limit;

    /** Unsent bytes when the idle timer last fired with some left, else -1. */
    long unsent = -1;

    State(Vertx vertx) {
      this.vertx = vertx;
    }
  }

  private ConnectionGuard(ClientLimits limits, LimitHits hits, LimitHits.Port port) {
    this.limits = limits;
    this.hits = hits;
    this.port = port;
  }

  public static ConnectionGuard create(ClientLimits limits, LimitHits hits, LimitHits.Port port) {
    return new ConnectionGuard(limits, hits, port);
  }

  /** The server's connection handler; on the connection's event loop. */
  public void accept(HttpConnection c) {
    String client = client(c.remoteAddress());
    if (open.incrementAndGet() > limits.maxConnections()) {
      open.decrementAndGet();
      hits.hit(port, Limit.MAX_CONNECTIONS);
      c.close();
      return;
    }
    AtomicInteger mine = perClient.computeIfAbsent(client, k -> new AtomicInteger());
    if (mine.incrementAndGet() > limits.maxConnectionsPerClient()) {
      release(client, mine);
      hits.hit(port, Limit.MAX_CONNECTIONS_PER_CLIENT);
      c.close();
      return;
    }
    State s = new State(Vertx.currentContext().owner());
    states.put(c, s);
    c.closeHandler(
        v -> {
          State gone = states.remove(c);
          if (gone != null && gone.timer >= 0) {
            gone.vertx.cancelTimer(gone.timer);
          }
          release(client, mine);
        });
    arm(c, s, limits.headerTimeout().toMillis(), Limit.HEADER_TIMEOUT);
  }

  /**
   * A request head arrived on {@code c}: the connection is busy, not idle. False when {@code c} was
   * marked {@link #closeAfterThis}: the request must not be handled (it was pipelined behind one
   * whose framing forbids reuse) and the connection is being closed.
   */
  public boolean started(HttpConnection c) {
    State s = states.get(c);
    if (s == null) {
      return true;
    }
    if (s.closing) {
      c.close();
      return false;
    }
    s.active++;
    return true;
  }

  /**
   * No request after the current one is handled on {@code c}; the caller closes it once that one's
   * exchange is over, and {@link #ended} bounds how long that may take.
   */
  public void closeAfterThis(HttpConnection c) {
    State s = states.get(c);
    if (s != null) {
      s.closing = true;
    }
  }

  /** A response on {@code c} ended: with none left, the idle timer runs. */
  public void ended(HttpConnection c) {
    State s = states.get(c);
    if (s == null || --s.active > 0) {
      return;
    }
    s.active = 0;
    s.unsent = -1;
    if (s.closing) {
      // The caller closes once the body was read whole ({@link Lingering} when it was refused);
      // this bounds a body that never ends.
      arm(c, s, Lingering.MAX_MILLIS + 1000, null);
      return;
    }
    arm(c, s, limits.idleTimeout().toMillis(), Limit.IDLE_TIMEOUT);
  }

  /** Connections open on this port now. */
  public int open() {
    return open.get();
  }

  private void arm(HttpConnection c, State s, long ms, Limit limit) {
    s.deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
    s.limit = limit;
    if (s.timer >= 0) {
      if (s.timerAt <= s.deadline) {
        return; // it fires first and then waits for the rest
      }
      s.vertx.cancelTimer(s.timer);
    }
    schedule(c, s, ms);
  }

  private void schedule(HttpConnection c, State s, long ms) {
    s.timerAt = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
    s.timer = s.vertx.setTimer(ms, t -> fire(c, s));
  }

  private void fire(HttpConnection c, State s) {
    s.timer = -1;
    if (s.active > 0 || !states.containsKey(c)) {
      return; // busy: the end of its last request arms the timer again
    }
    long left = s.deadline - System.nanoTime();
    if (left > 0) {
      schedule(c, s, Math.max(1, TimeUnit.NANOSECONDS.toMillis(left + 999_999)));
      return;
    }
    if (s.limit == Limit.IDLE_TIMEOUT) {
      long unsent = Unsent.bytes(c);
      if (unsent > 0 && unsent != s.unsent) {
        // The last answer is still being sent (or was taken in part since the last look): the
        // client gets another idleTimeout to take some of it.
        s.unsent = unsent;
        arm(c, s, limits.idleTimeout().toMillis(), Limit.IDLE_TIMEOUT);
        return;
      }
      if (unsent > 0) {
        hits.hit(port, Limit.STALLED_CLIENT);
        Unsent.discardAndClose(c);
        return;
      }
    }
    if (s.limit != null) {
      hits.hit(port, s.limit);
    }
    c.close();
  }

  private void release(String client, AtomicInteger mine) {
    open.decrementAndGet();
    if (mine.decrementAndGet() <= 0) {
      perClient.remove(client, mine);
    }
  }

  private static String client(SocketAddress a) {
    if (a == null) {
      return "";
    }
    String host = a.hostAddress();
    return host == null ? String.valueOf(a) : host;
  }
}
