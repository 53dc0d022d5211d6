package dev.tally.sidecar.internal.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientConnection;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpConnectOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** One event loop's own upstream connections: reuse, limits, keep-alive expiry, closed ones. */
class UpstreamConnectionsIT {
  private Vertx vertx;
  private HttpServer server;
  private HttpClientAgent client;
  private Context loop;
  private final Set<Object> serverConnections = ConcurrentHashMap.newKeySet();
  private final List<HttpServerRequest> held = new CopyOnWriteArrayList<>();
  private volatile boolean hold;
  private final AtomicLong clock = new AtomicLong();

  @BeforeEach
  void start() throws Exception {
    vertx = Vertx.vertx();
    server =
        vertx
            .createHttpServer()
            .connectionHandler(serverConnections::add)
            .requestHandler(
                req -> {
                  if (hold) {
                    held.add(req);
                  } else {
                    req.response().end("ok");
                  }
                });
    await(server.listen(0, "127.0.0.1"));
    client = vertx.createHttpClient();
    loop = vertx.getOrCreateContext();
  }

  @AfterEach
  void stop() throws Exception {
    await(vertx.close());
  }

  private static <T> T await(Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  /** Runs {@code task} on the loop and waits for the future it returns. */
  private <T> T onLoop(Callable<Future<T>> task) throws Exception {
    Promise<T> p = Promise.promise();
    loop.runOnContext(
        v -> {
          try {
            task.call().onComplete(p);
          } catch (Exception e) {
            p.fail(e);
          }
        });
    return await(p.future());
  }

  private UpstreamConnections connections(int max) throws Exception {
    HttpConnectOptions connect =
        new HttpConnectOptions().setHost("127.0.0.1").setPort(server.actualPort());
    return onLoop(
        () ->
            Future.succeededFuture(
                UpstreamConnections.create(
                    client, connect, max, TimeUnit.SECONDS.toNanos(60), clock::get)));
  }

  private static Future<String> get(Future<HttpClientConnection> conn) {
    return conn.compose(c -> c.request(HttpMethod.GET, "/"))
        .compose(HttpClientRequest::send)
        .compose(r -> r.body())
        .map(b -> b.toString());
  }

  @Test
  void sequentialRequestsReuseOneConnection() throws Exception {
    UpstreamConnections c = connections(4);
    for (int i = 0; i < 5; i++) {
      assertThat(onLoop(() -> get(c.acquire()))).isEqualTo("ok");
    }
    assertThat(serverConnections).hasSize(1);
    assertThat(c.size()).isEqualTo(1);
  }

  @Test
  void busyConnectionsAreNotHandedOutAndTheLimitMeansNull() throws Exception {
    UpstreamConnections c = connections(2);
    hold = true;
    Future<String> a = onLoop(() -> Future.succeededFuture(get(c.acquire())));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (held.size() < 1 && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    Future<String> b = onLoop(() -> Future.succeededFuture(get(c.acquire())));
    while (held.size() < 2 && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    assertThat(held).hasSize(2);
    assertThat(serverConnections).hasSize(2);
    Boolean none = onLoop(() -> Future.succeededFuture(c.acquire() == null));
    assertThat(none).isTrue();
    for (HttpServerRequest r : held) {
      r.response().end("late");
    }
    assertThat(await(a)).isEqualTo("late");
    assertThat(await(b)).isEqualTo("late");
    hold = false;
    assertThat(onLoop(() -> get(c.acquire()))).isEqualTo("ok");
    assertThat(serverConnections).hasSize(2);
  }

  @Test
  void otherThreadsGetNull() throws Exception {
    UpstreamConnections c = connections(2);
    assertThat(c.acquire()).isNull();
  }

  @Test
  void aConnectionIdlePastTheKeepAliveIsClosedNotReused() throws Exception {
    UpstreamConnections c = connections(2);
    assertThat(onLoop(() -> get(c.acquire()))).isEqualTo("ok");
    clock.addAndGet(TimeUnit.SECONDS.toNanos(61));
    assertThat(onLoop(() -> get(c.acquire()))).isEqualTo("ok");
    assertThat(serverConnections).hasSize(2);
    assertThat(c.size()).isEqualTo(1);
  }

  @Test
  void aConnectionClosedByTheUpstreamIsReplaced() throws Exception {
    UpstreamConnections c = connections(2);
    assertThat(onLoop(() -> get(c.acquire()))).isEqualTo("ok");
    Promise<Void> closed = Promise.promise();
    for (Object conn : serverConnections) {
      ((io.vertx.core.http.HttpConnection) conn).close().onComplete(closed);
    }
    await(closed.future());
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (onLoop(() -> Future.succeededFuture(c.size())) > 0 && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    assertThat(onLoop(() -> get(c.acquire()))).isEqualTo("ok");
    assertThat(serverConnections).hasSize(2);
  }

  @Test
  void connectionsClosedBehindTheRoundRobinAreSkippedAfterPruning() throws Exception {
    UpstreamConnections c = connections(3);
    hold = true;
    List<Future<String>> busy = new java.util.ArrayList<>();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    for (int i = 0; i < 3; i++) {
      busy.add(onLoop(() -> Future.succeededFuture(get(c.acquire()))));
      int want = i + 1;
      while (held.size() < want && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
    }
    hold = false;
    for (HttpServerRequest r : held) {
      r.response().end("late");
    }
    for (Future<String> f : busy) {
      assertThat(await(f)).isEqualTo("late");
    }
    // Two sequential uses move the round robin to the third connection.
    assertThat(onLoop(() -> get(c.acquire()))).isEqualTo("ok");
    assertThat(onLoop(() -> get(c.acquire()))).isEqualTo("ok");
    // The upstream closes two of the three; pruning shrinks the list below the round robin's place.
    List<Future<Void>> closing = new java.util.ArrayList<>();
    serverConnections.stream()
        .limit(2)
        .forEach(conn -> closing.add(((io.vertx.core.http.HttpConnection) conn).close()));
    for (Future<Void> f : closing) {
      await(f);
    }
    while (onLoop(() -> Future.succeededFuture(c.size())) > 1 && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    for (int i = 0; i < 4; i++) {
      assertThat(onLoop(() -> get(c.acquire()))).isEqualTo("ok");
    }
  }

  @Test
  void closeAllClosesEveryConnection() throws Exception {
    UpstreamConnections c = connections(2);
    assertThat(onLoop(() -> get(c.acquire()))).isEqualTo("ok");
    onLoop(c::closeAll);
    assertThat(c.size()).isZero();
  }
}
