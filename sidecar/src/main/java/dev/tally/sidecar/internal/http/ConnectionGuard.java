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
  private final Map<HttpConnection, Turn> states = new ConcurrentHashMap<>();

  /**
   * One connection: requests in progress, the body being read, and the one timer that waits for the
   * next request head or for that body. The timer is lazy: a request that starts does not cancel it
   * and one that ends only moves {@code deadline}; when the timer fires it acts on what is past due
   * and otherwise sets itself again for the rest (as Netty's {@code IdleStateHandler} does), never
   * further ahead than {@code bodyTimeout}, so that watching a new body ({@link #watchBody}) finds
   * it already due early enough. Setting and cancelling a Vert.x timer on every request of a
   * keep-alive connection cost ~4 % of a loaded sidecar's CPU; handing the body's own timer to the
   * event loop after the request head cost another ~2.5 %.
   */
  public final class Turn {
    private final HttpConnection conn;
    private final Vertx vertx;
    private int active;
    private boolean closing;
    private long timer = -1;
    private long timerAt;
    private long deadline;
    private Limit limit;

    /** When the body being read must have ended. */
    private long bodyDue;

    /** What to do if it has not by then; null: no body is watched. */
    private Runnable bodyExpired;

    /** Unsent bytes when the idle timer last fired with some left, else -1. */
    private long unsent = -1;

    private Turn(HttpConnection conn, Vertx vertx) {
      this.conn = conn;
      this.vertx = vertx;
    }

    /** A response on this connection ended: with none left, the idle timer runs. */
    public void ended() {
      if (conn == null || --active > 0) {
        return;
      }
      active = 0;
      unsent = -1;
      if (closing) {
        // The caller closes once the body was read whole ({@link Lingering} when it was refused);
        // this bounds a body that never ends.
        arm(this, Lingering.MAX_MILLIS + 1000, null);
        return;
      }
      arm(this, limits.idleTimeout().toMillis(), Limit.IDLE_TIMEOUT);
    }

    /**
     * Runs {@code expired} on this connection's event loop unless {@link #bodyRead} is called
     * within {@code ms}. False, watching nothing, when this connection already watches a body (an
     * HTTP/2 connection reads several at once) or is not guarded: the caller sets its own timer.
     */
    public boolean watchBody(long ms, Runnable expired) {
      if (conn == null || bodyExpired != null) {
        return false;
      }
      bodyDue = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
      bodyExpired = expired;
      fireBy(this, bodyDue, ms);
      return true;
    }

    /** The body {@link #watchBody} watched was read (or refused): nothing more to watch. */
    public void bodyRead() {
      bodyExpired = null;
    }
  }

  /** The turn of a connection this guard did not accept: it watches nothing. */
  private final Turn unguarded = new Turn(null, null);

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
    Turn s = new Turn(c, Vertx.currentContext().owner());
    states.put(c, s);
    c.closeHandler(
        v -> {
          Turn gone = states.remove(c);
          if (gone != null && gone.timer >= 0) {
            gone.vertx.cancelTimer(gone.timer);
          }
          release(client, mine);
        });
    arm(s, limits.headerTimeout().toMillis(), Limit.HEADER_TIMEOUT);
  }

  /**
   * A request head arrived on {@code c}: the connection is busy, not idle. Returns the request's
   * turn on the connection (its {@link Turn#ended} is called when the response ended), or null when
   * {@code c} was marked {@link #closeAfterThis}: the request must not be handled (it was pipelined
   * behind one whose framing forbids reuse) and the connection is being closed.
   */
  public Turn started(HttpConnection c) {
    Turn s = states.get(c);
    if (s == null) {
      return unguarded;
    }
    if (s.closing) {
      c.close();
      return null;
    }
    s.active++;
    return s;
  }

  /**
   * No request after the current one is handled on {@code c}; the caller closes it once that one's
   * exchange is over, and {@link Turn#ended} bounds how long that may take.
   */
  public void closeAfterThis(HttpConnection c) {
    Turn s = states.get(c);
    if (s != null) {
      s.closing = true;
    }
  }

  /** Connections open on this port now. */
  public int open() {
    return open.get();
  }

  private void arm(Turn s, long ms, Limit limit) {
    s.deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
    s.limit = limit;
    fireBy(s, s.deadline, ms);
  }

  /** Makes {@code s}'s timer fire by {@code due} ({@code ms} from now), moving it only if later. */
  private void fireBy(Turn s, long due, long ms) {
    if (s.timer >= 0) {
      if (s.timerAt - due <= 0) {
        return; // it fires first and then waits for the rest
      }
      s.vertx.cancelTimer(s.timer);
    }
    schedule(s, ms);
  }

  /** Sets {@code s}'s timer for {@code ms}, or for {@code bodyTimeout} if that comes first. */
  private void schedule(Turn s, long ms) {
    long in = Math.max(1, Math.min(ms, limits.bodyTimeout().toMillis()));
    s.timerAt = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(in);
    s.timer = s.vertx.setTimer(in, t -> fire(s));
  }

  private void fire(Turn s) {
    s.timer = -1;
    HttpConnection c = s.conn;
    if (!states.containsKey(c)) {
      return;
    }
    long now = System.nanoTime();
    if (s.bodyExpired != null) {
      long left = s.bodyDue - now;
      if (left > 0) {
        schedule(s, millisUp(left));
        return;
      }
      Runnable expired = s.bodyExpired;
      s.bodyExpired = null;
      expired.run();
    }
    if (s.active > 0) {
      return; // busy: the end of its last request arms the timer again
    }
    long left = s.deadline - now;
    if (left > 0) {
      schedule(s, millisUp(left));
      return;
    }
    if (s.limit == Limit.IDLE_TIMEOUT) {
      long unsent = Unsent.bytes(c);
      if (unsent > 0 && unsent != s.unsent) {
        // The last answer is still being sent (or was taken in part since the last look): the
        // client gets another idleTimeout to take some of it.
        s.unsent = unsent;
        arm(s, limits.idleTimeout().toMillis(), Limit.IDLE_TIMEOUT);
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

  private static long millisUp(long nanos) {
    return Math.max(1, TimeUnit.NANOSECONDS.toMillis(nanos + 999_999));
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
