package dev.tally.filter;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tally.core.call.DispatchRecorder;
import dev.tally.core.call.OwnCalls;
import dev.tally.core.execution.Execution;
import dev.tally.core.gate.Confirmations;
import dev.tally.core.mcp.Headers;
import dev.tally.core.mcp.McpNames.HeaderNames;
import dev.tally.core.mcp.MediaTypes;
import dev.tally.core.mcp.RpcOutcome;
import dev.tally.core.mcp.RpcResponseWatcher;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The filter's own MCP client to the application it is part of (issue 18), for the calls Tally
 * sends itself: a call its person confirmed, and a status tool's lookup. In-process MCP servlets
 * (the MCP Java SDK's transport among them) need a real asynchronous request with their own
 * response, which a {@code RequestDispatcher} cannot give a call no client is waiting on, so these
 * go as real HTTP requests ({@code java.net.http}) to the application's MCP endpoint: {@code
 * filter.selfUrl}, else the local address, port and path of the MCP requests the filter has seen.
 *
 * <p>Each such {@code tools/call} carries a one-time random value in {@value #OWN_HEADER}; the
 * filter passes a request bearing a value it issued straight to the servlet (it is already recorded
 * as {@code dispatched}, or it is the status lookup), and a value it did not issue is ignored. The
 * confirmed call's answer is read here and settles the execution through core's {@link
 * DispatchRecorder} and {@link OwnCalls}, exactly as the sidecar's own client settles it. A
 * 2025-era call runs on a session of its own ({@code initialize}, the call, {@code DELETE}); a
 * 2026-07-28 call stateless.
 */
final class SelfClient implements AutoCloseable {
  /** The header that marks a request the filter sent itself. */
  static final String OWN_HEADER = "Tally-Own-Request";

  /** How long one own exchange may take, without its answer, before it counts as timed out. */
  static final Duration TIMEOUT = Duration.ofSeconds(60);

  private static final String CLIENT_NAME = "tally-filter-confirm";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final SecureRandom RANDOM = new SecureRandom();

  private final URI configured;
  private volatile URI learned;
  private final String idempotencyHeader;
  private final int maxBytes;
  private final Set<String> issued = ConcurrentHashMap.newKeySet();
  private final ExecutorService readers =
      Executors.newCachedThreadPool(daemon("tally-filter-own-read"));
  private final ScheduledExecutorService timers =
      Executors.newSingleThreadScheduledExecutor(daemon("tally-filter-own-timer"));
  private final HttpClient http;

  SelfClient(URI configured, String idempotencyHeader, int maxBytes) {
    this.configured = configured;
    this.idempotencyHeader = idempotencyHeader;
    this.maxBytes = maxBytes;
    this.http =
        HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(10))
            .executor(readers)
            .version(HttpClient.Version.HTTP_1_1)
            .build();
  }

  /** Notes the MCP endpoint a request reached, unless one is configured or known already. */
  void learn(HttpServletRequest req) {
    if (configured != null || learned != null) {
      return;
    }
    String host = req.getLocalAddr();
    if (host == null || host.isEmpty()) {
      return;
    }
    if (host.indexOf(':') >= 0 && !host.startsWith("[")) {
      host = "[" + host + "]";
    }
    try {
      learned =
          new URI(req.getScheme() + "://" + host + ":" + req.getLocalPort() + req.getRequestURI());
    } catch (java.net.URISyntaxException e) {
      // an odd request URI: learn from the next one
    }
  }

  /** The endpoint own requests go to, or null while none is known. */
  URI endpoint() {
    return configured != null ? configured : learned;
  }

  /** Whether {@code value} of {@value #OWN_HEADER} is one this client issued (used once). */
  boolean claim(String value) {
    return value != null && issued.remove(value);
  }

  /**
   * Sends the confirmed {@code run} with {@code authorization} (may be null) and completes with the
   * execution as it was settled. Never fails: every failure is recorded on the execution.
   */
  CompletionStage<Execution> send(Confirmations.Execute run, String authorization) {
    DispatchRecorder recorder = DispatchRecorder.of(run.inFlight(), run.call().id());
    CompletableFuture<Execution> done = new CompletableFuture<>();
    Map<String, String> base = new LinkedHashMap<>();
    if (authorization != null) {
      base.put("Authorization", authorization);
    }
    CompletionStage<Map<String, String>> session;
    if (OwnCalls.modern(run)) {
      // The headers its client would have sent, Mcp-Param-* included, as core built them.
      base.putAll(run.headers());
      session = CompletableFuture.completedFuture(base);
    } else {
      session = legacySession(base);
    }
    session.whenComplete(
        (h, err) -> {
          if (err != null) {
            recorder.unreachable();
            done.complete(run.inFlight().execution());
            return;
          }
          Map<String, String> headers = new LinkedHashMap<>(h);
          headers.put(idempotencyHeader, run.inFlight().id().value());
          call(run, recorder, headers, done);
          done.whenComplete((e, x) -> endSession(h));
        });
    return done;
  }

  /**
   * A status lookup: {@code tool} with {@code argumentsJson} on the retrying caller's credential,
   * on a session of its own, else as a stateless 2026-07-28 client sending {@code modernHeaders}
   * (core's mirrored headers of the call). Completes with the answer, or empty when none was had;
   * never fails.
   */
  CompletionStage<Optional<RpcOutcome>> lookup(
      String tool, byte[] argumentsJson, Headers caller, Map<String, String> modernHeaders) {
    ObjectNode legacyCall = OwnCalls.statusCall(tool, argumentsJson, false);
    ObjectNode modernCall = OwnCalls.statusCall(tool, argumentsJson, true);
    if (legacyCall == null || endpoint() == null) {
      return CompletableFuture.completedFuture(Optional.empty());
    }
    Map<String, String> auth = new LinkedHashMap<>();
    String authorization = caller.get("Authorization");
    if (authorization != null) {
      auth.put("Authorization", authorization);
    }
    return legacySession(auth)
        .thenCompose(
            h ->
                post(bytes(legacyCall), own(h), OwnCalls.STATUS_ID)
                    .thenApply(a -> Optional.ofNullable(a.outcome()))
                    .whenComplete((x, e) -> endSession(h)))
        .exceptionallyCompose(
            notLegacy -> {
              Map<String, String> h = new LinkedHashMap<>(auth);
              h.putAll(modernHeaders);
              return post(bytes(modernCall), own(h), OwnCalls.STATUS_ID)
                  .thenApply(a -> Optional.ofNullable(a.outcome()));
            })
        .exceptionally(e -> Optional.empty());
  }

  @Override
  public void close() {
    timers.shutdownNow();
    readers.shutdownNow();
  }

  /** {@code h} plus a fresh one-time {@value #OWN_HEADER}. */
  private Map<String, String> own(Map<String, String> h) {
    byte[] b = new byte[16];
    RANDOM.nextBytes(b);
    String v = HexFormat.of().formatHex(b);
    issued.add(v);
    Map<String, String> out = new LinkedHashMap<>(h);
    out.put(OWN_HEADER, v);
    return out;
  }

  private void call(
      Confirmations.Execute run,
      DispatchRecorder recorder,
      Map<String, String> headers,
      CompletableFuture<Execution> done) {
    URI to = endpoint();
    if (to == null) {
      recorder.unreachable();
      done.complete(run.inFlight().execution());
      return;
    }
    Map<String, String> h = own(headers);
    String value = h.get(OWN_HEADER);
    http.sendAsync(request(to, "POST", run.body(), h), HttpResponse.BodyHandlers.ofInputStream())
        .whenComplete(
            (resp, err) -> {
              if (err != null) {
                issued.remove(value);
                Throwable c = err.getCause() != null ? err.getCause() : err;
                if (c instanceof ConnectException) {
                  recorder.unreachable();
                } else if (c instanceof HttpTimeoutException) {
                  recorder.timedOut();
                } else {
                  recorder.broke("the application's MCP endpoint failed after the call was sent");
                }
                done.complete(run.inFlight().execution());
                return;
              }
              recorder.head(resp.statusCode());
              read(
                  resp,
                  run.call().id(),
                  o -> {
                    var settled = recorder.answer(o);
                    if (settled != null) {
                      OwnCalls.settle(run, settled).thenAccept(done::complete);
                    }
                  },
                  timedOut -> {
                    if (!recorder.settled()) {
                      if (timedOut) {
                        recorder.timedOut();
                      } else {
                        recorder.ended();
                      }
                      done.complete(run.inFlight().execution());
                    }
                  });
            });
  }

  /** One answer: status, the session it assigned, the outcome for the request's id (or null). */
  private record Answer(int status, String session, RpcOutcome outcome) {}

  /** POSTs {@code body}; completes with the answer, exceptionally when none came. */
  private CompletionStage<Answer> post(byte[] body, Map<String, String> headers, JsonNode id) {
    URI to = endpoint();
    if (to == null || body == null) {
      return CompletableFuture.failedFuture(new IOException("no MCP endpoint known yet"));
    }
    CompletableFuture<Answer> answer = new CompletableFuture<>();
    http.sendAsync(request(to, "POST", body, headers), HttpResponse.BodyHandlers.ofInputStream())
        .whenComplete(
            (resp, err) -> {
              if (err != null) {
                answer.completeExceptionally(err);
                return;
              }
              String session = resp.headers().firstValue(HeaderNames.SESSION_ID).orElse(null);
              read(
                  resp,
                  id,
                  o -> answer.complete(new Answer(resp.statusCode(), session, o)),
                  timedOut -> {
                    if (timedOut) {
                      answer.completeExceptionally(new HttpTimeoutException("no answer in time"));
                    } else {
                      answer.complete(new Answer(resp.statusCode(), session, null));
                    }
                  });
            });
    return answer;
  }

  /**
   * Reads {@code resp}'s body on a reader thread until the outcome for {@code id} ({@code null}:
   * none awaited), then stops; {@code ended} is told (with whether time ran out) when the body
   * ended without one.
   */
  private void read(
      HttpResponse<InputStream> resp,
      JsonNode id,
      java.util.function.Consumer<RpcOutcome> onOutcome,
      java.util.function.Consumer<Boolean> ended) {
    InputStream in = resp.body();
    AtomicBoolean expired = new AtomicBoolean();
    AtomicBoolean answered = new AtomicBoolean();
    RpcResponseWatcher watcher =
        id == null
            ? null
            : RpcResponseWatcher.forContentType(
                resp.headers().firstValue("Content-Type").orElse(null),
                id,
                maxBytes,
                o -> {
                  answered.set(true);
                  onOutcome.accept(o);
                });
    ScheduledFuture<?> timer =
        timers.schedule(
            () -> {
              expired.set(true);
              closeQuietly(in);
            },
            TIMEOUT.toMillis(),
            TimeUnit.MILLISECONDS);
    readers.execute(
        () -> {
          byte[] buf = new byte[8192];
          try (in) {
            int n;
            while (!answered.get() && (n = in.read(buf)) >= 0) {
              if (watcher != null) {
                watcher.feed(buf, 0, n);
              }
            }
            if (!answered.get() && watcher != null) {
              watcher.end();
            }
          } catch (IOException e) {
            // ended below
          } finally {
            timer.cancel(false);
            if (!answered.get()) {
              ended.accept(expired.get());
            }
          }
        });
  }

  /** A legacy-era session of its own on {@code auth}: the headers its calls carry. */
  private CompletionStage<Map<String, String>> legacySession(Map<String, String> auth) {
    return post(bytes(OwnCalls.initialize(CLIENT_NAME)), auth, OwnCalls.INITIALIZE_ID)
        .thenCompose(
            a -> {
              String version = OwnCalls.negotiated(a.outcome());
              if (a.status() != 200 || version == null) {
                return CompletableFuture.failedFuture(new IOException("initialize refused"));
              }
              Map<String, String> h = new LinkedHashMap<>(auth);
              h.put(HeaderNames.PROTOCOL_VERSION, version);
              if (a.session() != null) {
                h.put(HeaderNames.SESSION_ID, a.session());
              }
              return post(bytes(OwnCalls.initialized()), h, null).thenApply(x -> h);
            });
  }

  /** Ends the session {@code h} names ({@code DELETE}), if any; fire and forget. */
  private void endSession(Map<String, String> h) {
    URI to = endpoint();
    if (to == null || h == null || h.get(HeaderNames.SESSION_ID) == null) {
      return;
    }
    http.sendAsync(request(to, "DELETE", null, h), HttpResponse.BodyHandlers.discarding());
  }

  private static HttpRequest request(
      URI to, String method, byte[] body, Map<String, String> headers) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(to)
            .header("Accept", MediaTypes.JSON + ", " + MediaTypes.SSE)
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofByteArray(body));
    if (body != null) {
      b.header("Content-Type", MediaTypes.JSON);
    }
    headers.forEach(b::setHeader);
    return b.build();
  }

  private static byte[] bytes(ObjectNode msg) {
    if (msg == null) {
      return null;
    }
    try {
      return JSON.writeValueAsBytes(msg);
    } catch (IOException e) {
      return null;
    }
  }

  private static void closeQuietly(InputStream in) {
    try {
      in.close();
    } catch (IOException e) {
      // closing only to stop a read
    }
  }

  private static java.util.concurrent.ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }
}
