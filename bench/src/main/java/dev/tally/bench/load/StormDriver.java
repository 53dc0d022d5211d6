package dev.tally.bench.load;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The retry-storm workload of the load benchmark: each storm is one new intent sent as {@code
 * --clients} identical {@code tools/call} requests at once (one per connection, each with its own
 * JSON-RPC id, as retries have), and the next storm starts when every answer is in. Prints one
 * {@code STORM key=value ...} line: storms, storms/s, answers that were not a successful result for
 * their own id, answers Tally marked as replayed, and how many times the upstream executed the tool
 * (from the canned upstream's {@code /count}) — with Tally in front that must equal the number of
 * storms.
 *
 * <p>Usage: {@code java -cp tally-bench.jar dev.tally.bench.load.StormDriver --url
 * http://127.0.0.1:P/mcp --count-url http://127.0.0.1:U/count --seconds 8 --warmup 2 --prefix r1
 * [--clients 64]}
 */
public final class StormDriver {
  private static final long REQUEST_TIMEOUT_MS = 10_000;
  private static final HttpClient COUNTER =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();
  private final HttpClientAgent client;
  private final URI url;
  private final int clients;
  private final String prefix;
  private final boolean keyed;
  private final List<Long> durationsNanos = new ArrayList<>();
  private long answers;
  private long bad;
  private long replayed;
  private long failures;

  private StormDriver(HttpClientAgent client, URI url, int clients, String prefix, boolean keyed) {
    this.client = client;
    this.url = url;
    this.clients = clients;
    this.prefix = prefix;
    this.keyed = keyed;
  }

  public static void main(String[] args) throws Exception {
    URI url = null;
    URI countUrl = null;
    int clients = 64;
    double seconds = 8;
    double warmup = 0;
    String prefix = Long.toString(System.nanoTime(), 36);
    boolean keyed = false;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--url" -> url = URI.create(args[++i]);
        case "--count-url" -> countUrl = URI.create(args[++i]);
        case "--clients" -> clients = Integer.parseInt(args[++i]);
        case "--seconds" -> seconds = Double.parseDouble(args[++i]);
        case "--warmup" -> warmup = Double.parseDouble(args[++i]);
        case "--prefix" -> prefix = args[++i];
        case "--keyed" -> keyed = true;
        default -> throw new IllegalArgumentException("unknown argument: " + args[i]);
      }
    }
    if (url == null || countUrl == null) {
      throw new IllegalArgumentException("--url and --count-url are required");
    }
    Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1));
    try {
      HttpClientAgent client =
          vertx
              .httpClientBuilder()
              .with(new HttpClientOptions().setKeepAlive(true).setTcpNoDelay(true))
              .with(new PoolOptions().setHttp1MaxSize(clients))
              .build();
      if (warmup > 0) {
        new StormDriver(client, url, clients, prefix + "w", keyed).runFor(warmup);
      }
      long before = count(countUrl);
      StormDriver d = new StormDriver(client, url, clients, prefix, keyed);
      long t0 = System.nanoTime();
      int storms = d.runFor(seconds);
      double elapsed = (System.nanoTime() - t0) / 1e9;
      long executed = count(countUrl) - before;
      System.out.println(d.report(storms, elapsed, executed));
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  private int runFor(double seconds) throws Exception {
    long deadline = System.nanoTime() + (long) (seconds * 1e9);
    Promise<Integer> done = Promise.promise();
    next(0, deadline, done);
    return done.future().toCompletionStage().toCompletableFuture().get(120, TimeUnit.SECONDS);
  }

  private void next(int n, long deadline, Promise<Integer> done) {
    if (System.nanoTime() >= deadline) {
      done.complete(n);
      return;
    }
    long start = System.nanoTime();
    storm(n)
        .onComplete(
            ar -> {
              if (ar.failed()) {
                done.fail(ar.cause());
                return;
              }
              durationsNanos.add(System.nanoTime() - start);
              next(n + 1, deadline, done);
            });
  }

  /** One storm: the same intent {@code clients} times at once. */
  private Future<Void> storm(int n) {
    String key = keyed ? "\"idempotencyKey\":\"storm-" + prefix + "-" + n + "\"," : "";
    String args =
        "{"
            + key
            + "\"title\":\"storm "
            + prefix
            + " "
            + n
            + "\",\"body\":\"one intent, many copies\"}";
    List<Future<Void>> calls = new ArrayList<>(clients);
    for (int i = 1; i <= clients; i++) {
      String body =
          "{\"jsonrpc\":\"2.0\",\"id\":"
              + i
              + ",\"method\":\"tools/call\",\"params\":{\"name\":\"create_ticket\",\"arguments\":"
              + args
              + "}}";
      calls.add(call(i, body));
    }
    return Future.all(calls).mapEmpty();
  }

  private Future<Void> call(int id, String body) {
    RequestOptions ro =
        new RequestOptions()
            .setMethod(HttpMethod.POST)
            .setHost(url.getHost())
            .setPort(url.getPort())
            .setURI(url.getRawPath())
            .setConnectTimeout(5000)
            .setIdleTimeout(REQUEST_TIMEOUT_MS)
            .putHeader("Content-Type", "application/json")
            .putHeader("Accept", "application/json, text/event-stream")
            .putHeader("MCP-Protocol-Version", "2025-06-18");
    return client
        .request(ro)
        .compose(r -> r.send(Buffer.buffer(body)))
        .compose(resp -> resp.body().map(b -> check(id, resp.statusCode(), b)))
        .recover(
            t -> {
              // A lost or timed-out answer is a bad answer, not the end of the run.
              answers++;
              bad++;
              if (failures++ == 0) {
                System.err.println("storm: first failed call: " + t);
              }
              return Future.succeededFuture();
            })
        .mapEmpty();
  }

  private Void check(int id, int status, Buffer b) {
    String s = b.toString(StandardCharsets.UTF_8);
    answers++;
    boolean ok =
        status == 200
            && (s.contains("\"id\":" + id + ",") || s.contains("\"id\":" + id + "}"))
            && s.contains("\"result\"")
            && !s.contains("\"isError\":true");
    if (!ok) {
      bad++;
    }
    if (s.contains("dev.tally/replay")) {
      replayed++;
    }
    return null;
  }

  private String report(int storms, double elapsed, long executed) {
    long[] d = durationsNanos.stream().mapToLong(Long::longValue).toArray();
    Arrays.sort(d);
    return String.format(
        Locale.ROOT,
        "STORM keyed=%s storms=%d seconds=%.3f storms_per_s=%.1f clients=%d answers=%d bad=%d"
            + " failed_calls=%d replayed=%d executed=%d storm_p50_ms=%.2f storm_p99_ms=%.2f",
        keyed,
        storms,
        elapsed,
        storms / elapsed,
        clients,
        answers,
        bad,
        failures,
        replayed,
        executed,
        pct(d, 0.50) / 1e6,
        pct(d, 0.99) / 1e6);
  }

  private static double pct(long[] sorted, double q) {
    if (sorted.length == 0) {
      return 0;
    }
    int i = (int) Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1);
    return sorted[Math.max(0, i)];
  }

  /** The upstream's execution count, over a connection of its own (JDK client). */
  private static long count(URI countUrl) throws Exception {
    HttpRequest req = HttpRequest.newBuilder(countUrl).timeout(Duration.ofSeconds(10)).build();
    HttpResponse<String> resp =
        COUNTER.send(req, HttpResponse.BodyHandlers.ofString(StandardCharsets.US_ASCII));
    return Long.parseLong(resp.body().trim());
  }
}
