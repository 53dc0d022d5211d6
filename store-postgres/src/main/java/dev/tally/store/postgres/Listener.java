package dev.tally.store.postgres;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.pgclient.PgConnection;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * One connection that {@code LISTEN}s on {@link Schema#CHANNEL} and hands every payload to a
 * consumer. It reconnects by itself after {@code reconnectMillis} whenever the connection fails or
 * closes, and pings the server every {@code pingMillis}, closing a connection that does not answer
 * within {@code timeoutMillis}, so a silently dead connection is noticed. {@link #listening()} is
 * true only while notifications can arrive; each time it becomes true {@code onListening} runs, so
 * the caller can catch up on what happened while it was false.
 */
final class Listener {
  private static final System.Logger LOG = System.getLogger(PostgresExecutionStore.class.getName());

  private final Vertx vertx;
  private final PgConnectOptions options;
  private final Consumer<String> onPayload;
  private final Runnable onListening;
  private final long reconnectMillis;
  private final long pingMillis;
  private final long timeoutMillis;
  private final String server;
  private volatile boolean listening;
  private volatile boolean closed;
  private volatile PgConnection connection;
  private volatile long pingTimer = -1;
  private volatile boolean loggedDown;
  private final Promise<Void> firstAttempt = Promise.promise();

  Listener(
      Vertx vertx,
      PgConnectOptions options,
      String server,
      Consumer<String> onPayload,
      Runnable onListening,
      long reconnectMillis,
      long pingMillis,
      long timeoutMillis) {
    this.vertx = vertx;
    this.options = options;
    this.server = server;
    this.onPayload = onPayload;
    this.onListening = onListening;
    this.reconnectMillis = reconnectMillis;
    this.pingMillis = pingMillis;
    this.timeoutMillis = timeoutMillis;
  }

  boolean listening() {
    return listening;
  }

  /**
   * Starts connecting; the future completes once the first attempt ended, listening or not (a
   * failed attempt is retried in the background).
   */
  Future<Void> start() {
    connect();
    return firstAttempt.future();
  }

  private void connect() {
    if (closed) {
      return;
    }
    // A connect that hangs (an unreachable host) is abandoned after the timeout and retried.
    AtomicBoolean abandoned = new AtomicBoolean();
    long deadline =
        vertx.setTimer(
            timeoutMillis,
            t -> {
              if (abandoned.compareAndSet(false, true)) {
                down(null);
                retry();
              }
            });
    PgConnection.connect(vertx, options)
        .onComplete(
            ar -> {
              vertx.cancelTimer(deadline);
              if (!abandoned.compareAndSet(false, true)) {
                if (ar.succeeded()) {
                  ar.result().close();
                }
              } else if (ar.failed()) {
                down(ar.cause());
                retry();
              } else {
                listen(ar.result());
              }
            });
  }

  private void listen(PgConnection conn) {
    synchronized (this) {
      if (closed) {
        conn.close();
        return;
      }
      connection = conn;
    }
    conn.notificationHandler(n -> onPayload.accept(n.getPayload()));
    conn.closeHandler(v -> lost(conn, null));
    conn.exceptionHandler(e -> lost(conn, e));
    conn.query("LISTEN " + Schema.CHANNEL)
        .execute()
        .onComplete(
            ar -> {
              if (ar.failed()) {
                lost(conn, ar.cause());
              } else if (!closed && connection == conn) {
                listening = true;
                if (loggedDown) {
                  LOG.log(System.Logger.Level.INFO, "listening for changes again on " + server);
                  loggedDown = false;
                }
                schedulePing(conn);
                onListening.run();
              }
              firstAttempt.tryComplete();
            });
  }

  private void schedulePing(PgConnection conn) {
    pingTimer =
        vertx.setTimer(
            pingMillis,
            t -> {
              if (closed || connection != conn) {
                return;
              }
              long deadline = vertx.setTimer(timeoutMillis, d -> lost(conn, null));
              conn.query(Sql.PING)
                  .execute()
                  .onComplete(
                      ar -> {
                        vertx.cancelTimer(deadline);
                        if (ar.succeeded()) {
                          schedulePing(conn);
                        } else {
                          lost(conn, ar.cause());
                        }
                      });
            });
  }

  private void lost(PgConnection conn, Throwable cause) {
    synchronized (this) {
      if (connection != conn) {
        return;
      }
      connection = null;
    }
    listening = false;
    vertx.cancelTimer(pingTimer);
    conn.close();
    if (!closed) {
      down(cause);
      retry();
    }
  }

  private void down(Throwable cause) {
    listening = false;
    firstAttempt.tryComplete();
    if (!loggedDown && !closed) {
      loggedDown = true;
      LOG.log(
          System.Logger.Level.WARNING,
          "not listening for changes on "
              + server
              + " ("
              + (cause == null ? "connection closed" : cause.getClass().getSimpleName())
              + "); waits poll until it reconnects");
    }
  }

  private void retry() {
    if (!closed) {
      vertx.setTimer(reconnectMillis, t -> connect());
    }
  }

  void close() {
    PgConnection conn;
    synchronized (this) {
      closed = true;
      conn = connection;
      connection = null;
    }
    listening = false;
    firstAttempt.tryComplete();
    vertx.cancelTimer(pingTimer);
    if (conn != null) {
      conn.close();
    }
  }
}
