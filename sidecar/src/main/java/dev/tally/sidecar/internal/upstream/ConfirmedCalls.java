package dev.tally.sidecar.internal.upstream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tally.core.call.DispatchRecorder;
import dev.tally.core.call.OwnCalls;
import dev.tally.core.execution.Execution;
import dev.tally.core.gate.Confirmations;
import dev.tally.core.mcp.McpNames.HeaderNames;
import dev.tally.core.mcp.MediaTypes;
import dev.tally.core.mcp.RpcOutcome;
import dev.tally.core.mcp.RpcResponseWatcher;
import dev.tally.sidecar.SidecarOptions;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;

/**
 * Runs a call its person confirmed (issue 18): the sidecar itself sends the stored {@code
 * tools/call} upstream, with {@code Idempotency-Key: <execution id>}, the execution id in {@code
 * _meta} and the confirming request's {@code Authorization} (the same actor's credential), and
 * settles the execution from the answer through core's {@link DispatchRecorder}, as for any
 * dispatched call. No client waits for the answer, so a result is recorded {@code
 * completed_not_delivered}: the agent's retry replays it.
 *
 * <p>A call from a 2025-era client is sent on a session of the sidecar's own ({@code initialize},
 * {@code notifications/initialized}, the call, {@code DELETE}); a 2026-07-28 call is sent stateless
 * with the mirrored headers core built for it ({@link Confirmations.Execute#headers()}: {@code
 * MCP-Protocol-Version}, {@code Mcp-Method}, {@code Mcp-Name}, {@code Mcp-Param-*}). Nothing is
 * sent before {@code dispatched} is durable; a failure before the call went out records it failed
 * before any effect.
 */
public final class ConfirmedCalls implements AutoCloseable {
  static final String LEGACY_VERSION = OwnCalls.LEGACY_VERSION;
  private static final String CLIENT_NAME = "tally-sidecar-confirm";

  private final OwnClient own;

  private ConfirmedCalls(Vertx vertx, SidecarOptions options) {
    this.own = OwnClient.create(vertx, options);
  }

  public static ConfirmedCalls create(Vertx vertx, SidecarOptions options) {
    return new ConfirmedCalls(vertx, options);
  }

  /**
   * Sends {@code run} upstream with {@code authorization} (may be null) and completes with the
   * execution as it was settled. Never fails: every failure is recorded on the execution.
   */
  public Future<Execution> send(Confirmations.Execute run, String authorization) {
    DispatchRecorder recorder = DispatchRecorder.of(run.inFlight(), run.call().id());
    MultiMap h = HttpHeaders.headers();
    if (authorization != null) {
      h.set(HttpHeaders.AUTHORIZATION, authorization);
    }
    Future<MultiMap> session;
    if (OwnCalls.modern(run)) {
      run.headers().forEach(h::set);
      session = Future.succeededFuture(h);
    } else {
      session = legacySession(h);
    }
    Promise<Execution> done = Promise.promise();
    session
        .onFailure(
            e -> {
              recorder.unreachable();
              done.complete(run.inFlight().execution());
            })
        .onSuccess(
            s -> {
              s.set(HeaderNames.IDEMPOTENCY_KEY, run.inFlight().id().value());
              call(run, recorder, s, done);
              done.future().onComplete(x -> endSession(s));
            });
    return done.future();
  }

  /**
   * A status lookup (issue 18): a {@code tools/call} of {@code tool} with {@code argumentsJson}, on
   * a session of the sidecar's own with {@code authorization} (the retrying caller's), as a
   * 2025-era client, else a stateless 2026-07-28 one sending {@code modernHeaders} (core's mirrored
   * headers of the call). Completes with the answer, or empty when none was had; never fails.
   */
  public Future<java.util.Optional<RpcOutcome>> lookup(
      String tool,
      byte[] argumentsJson,
      String authorization,
      java.util.Map<String, String> modernHeaders) {
    MultiMap auth = HttpHeaders.headers();
    if (authorization != null) {
      auth.set(HttpHeaders.AUTHORIZATION, authorization);
    }
    ObjectNode call = OwnCalls.statusCall(tool, argumentsJson, false);
    if (call == null) {
      return Future.succeededFuture(java.util.Optional.empty());
    }
    ObjectNode modernCall = OwnCalls.statusCall(tool, argumentsJson, true);
    JsonNode id = OwnCalls.STATUS_ID;
    return legacySession(auth)
        .compose(
            s ->
                post(call, s, id)
                    .map(a -> java.util.Optional.ofNullable(a.outcome()))
                    .andThen(x -> endSession(s)))
        .recover(
            notLegacy -> {
              MultiMap h = HttpHeaders.headers().addAll(auth);
              modernHeaders.forEach(h::set);
              return post(modernCall, h, id).map(a -> java.util.Optional.ofNullable(a.outcome()));
            })
        .recover(e -> Future.succeededFuture(java.util.Optional.empty()));
  }

  @Override
  public void close() {
    own.close();
  }

  private void call(
      Confirmations.Execute run, DispatchRecorder recorder, MultiMap h, Promise<Execution> done) {
    boolean[] sent = new boolean[1];
    own.open(HttpMethod.POST)
        .compose(
            req -> {
              own.headers(req, h, true);
              sent[0] = true;
              return req.send(Buffer.buffer(run.body()));
            })
        .onFailure(
            e -> {
              if (sent[0]) {
                recorder.broke("upstream request failed after it was sent");
              } else {
                recorder.unreachable();
              }
              done.complete(run.inFlight().execution());
            })
        .onSuccess(
            resp -> {
              recorder.head(resp.statusCode());
              BrokenAnswer silence = BrokenAnswer.watch(resp, own.timeout());
              RpcResponseWatcher watcher =
                  RpcResponseWatcher.forContentType(
                      resp.getHeader(HttpHeaders.CONTENT_TYPE),
                      run.call().id(),
                      own.maxBytes(),
                      o -> {
                        var settled = recorder.answer(o);
                        if (settled == null) {
                          return;
                        }
                        OwnCalls.settle(run, settled).thenAccept(done::tryComplete);
                        if (MediaTypes.isSse(resp.getHeader(HttpHeaders.CONTENT_TYPE))) {
                          resp.request().reset();
                        }
                      });
              resp.handler(
                  chunk -> {
                    silence.heard();
                    byte[] b = chunk.getBytes();
                    watcher.feed(b, 0, b.length);
                  });
              resp.exceptionHandler(
                  t -> {
                    silence.done();
                    if (silence.cut()) {
                      recorder.timedOut();
                    } else {
                      recorder.broke("upstream response broke");
                    }
                    done.tryComplete(run.inFlight().execution());
                  });
              resp.endHandler(
                  v -> {
                    silence.done();
                    watcher.end();
                    if (!recorder.settled()) {
                      recorder.ended();
                      done.tryComplete(run.inFlight().execution());
                    }
                  });
            });
  }

  /** A legacy-era session of the sidecar's own, on the confirming actor's credential. */
  private Future<MultiMap> legacySession(MultiMap auth) {
    ObjectNode init = OwnCalls.initialize(CLIENT_NAME);
    return post(init, auth, OwnCalls.INITIALIZE_ID)
        .compose(
            a -> {
              String version = negotiated(a.outcome());
              if (a.status() != 200 || version == null) {
                return Future.failedFuture(new IllegalStateException("initialize refused"));
              }
              MultiMap h = HttpHeaders.headers().addAll(auth);
              h.set(HeaderNames.PROTOCOL_VERSION, version);
              if (a.session() != null) {
                h.set(HeaderNames.SESSION_ID, a.session());
              }
              return post(OwnCalls.initialized(), h, null).map(x -> h);
            });
  }

  private Future<OwnClient.Answer> post(ObjectNode msg, MultiMap extra, JsonNode id) {
    return own.post(msg, extra, id);
  }

  private static String negotiated(RpcOutcome o) {
    return OwnCalls.negotiated(o);
  }

  private void endSession(MultiMap h) {
    own.endSession(h);
  }
}
