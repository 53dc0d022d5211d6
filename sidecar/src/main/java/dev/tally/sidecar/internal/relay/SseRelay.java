package dev.tally.sidecar.internal.relay;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.call.Delivery;
import dev.tally.core.mcp.Era;
import dev.tally.core.mcp.McpNames.HeaderNames;
import dev.tally.core.mcp.MediaTypes;
import dev.tally.core.mcp.Notifications;
import dev.tally.core.mcp.RpcResponseWatcher;
import dev.tally.core.mcp.SseEvent;
import dev.tally.core.mcp.SseParser;
import dev.tally.core.mcp.SseWriter;
import dev.tally.core.mcp.ToolResults;
import dev.tally.sidecar.internal.context.ProxyContext;
import dev.tally.sidecar.internal.http.RequestHeaders;
import dev.tally.sidecar.internal.stream.ResponseSink;
import dev.tally.sidecar.internal.stream.StreamBuffer;
import dev.tally.sidecar.internal.upstream.BrokenAnswer;
import dev.tally.sidecar.internal.upstream.Upstream;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;

/**
 * Relays an upstream SSE response: parses it (core's {@link SseParser}), replaces the upstream's
 * own ids with the sidecar's, hands every message to the tap, and appends it to a {@link
 * StreamBuffer} under the sidecar's id. What the protocol gives the client passes on: a {@code
 * retry} field, and a priming event (an id with empty data) as a priming event under the sidecar's
 * id when the sidecar did not prime the stream itself. An event over {@code
 * upstream.maxResponseBytes} breaks the stream (the one overflow policy: the parser reports it).
 * The upstream is read to its end even when the client goes away (ARCHITECTURE.md §7), unless the
 * mode cancels on client close. A message the tap holds back pauses the upstream so order is kept.
 *
 * <p>An upstream that closes a POST stream before its answer, after it gave event ids (SSE polling,
 * 2025-11-25 transports, "Resumability and Redelivery"), is resumed by the sidecar itself: after
 * the upstream's {@code retry} delay it sends GET + {@code Last-Event-ID} with the client's headers
 * and relays what follows into the same buffer (the execution's answer is captured either way).
 * When the upstream had primed the stream (it declared polling), the client's stream ends too,
 * after the relayed priming cursor and retry delay, and the client resumes from the sidecar's
 * buffer; otherwise (a restart, a crash) the client's stream simply continues. At most {@link
 * #MAX_RESUMES} reconnections in a row that bring no new event id; a refused one ends the stream as
 * an answerless end would.
 *
 * <p>A call's stream that breaks off (the upstream reset it, or sent nothing for {@code
 * upstream.timeout} since its head or its last event: see {@link BrokenAnswer}) before the answer
 * to the client's request ends with a JSON-RPC error event for that request, so the client is not
 * left waiting for an answer that cannot come; a tap, when there is one, speaks for the call
 * instead.
 *
 * <p>The session's standalone GET stream is reopened the same way when the upstream ends it (a
 * polling server, a restarted one): with {@code Last-Event-ID} when the upstream gave ids, as a
 * plain GET otherwise, at most {@link #MAX_RESUMES} times in a row without an event. Without this
 * the client's stream would end, and a client resuming it from the sidecar's ids would get an ended
 * stream back each time and never a live one.
 */
public final class SseRelay {
  /**
   * Reconnections in a row without a new upstream event id (the standalone stream: without an
   * event) before the relay gives up.
   */
  static final int MAX_RESUMES = 3;

  /**
   * A reopened standalone stream that stayed open this long was alive: its end starts a new count
   * towards {@link #MAX_RESUMES} (an upstream that closes idle streams periodically is followed).
   */
  static final Duration STAYED_OPEN = Duration.ofSeconds(10);

  /** Delay before a reconnection when the upstream sent no {@code retry} (the SDK client's). */
  static final long DEFAULT_RETRY_MS = 1000;

  private final ProxyContext ctx;
  private final Context context = Vertx.currentContext();
  private final HttpServerRequest clientReq;
  private final MessageTap tap;
  private final StreamBuffer buffer;
  private final ArrayDeque<SseEvent> queue = new ArrayDeque<>();
  private final boolean resumable;
  private final boolean standalone;
  // The client's request whose answer this stream owes (null: none, or the tap speaks for it).
  private final JsonNode requestId;
  private final BrokenAnswer broken;
  private boolean requestAnswered;
  private HttpClientRequest upReq;
  private HttpClientResponse upResp;
  private SseParser parser;
  private boolean holding;
  private boolean primingRelayed;
  // The client's response while it is attached; the upstream's polling close detaches it.
  private ResponseSink clientSink;
  private boolean upstreamPrimed;
  private boolean upstreamEnded;
  private boolean finished;
  private boolean cancelled;
  private String upstreamId;
  private long retryMs = -1;
  private boolean answered;
  private boolean reconnected;
  private int resumes;
  private Instant openedAt;
  private final boolean primedHere;

  private SseRelay(
      ProxyContext ctx,
      HttpServerRequest clientReq,
      HttpClientRequest upReq,
      HttpClientResponse upResp,
      MessageTap tap,
      StreamBuffer b,
      JsonNode requestId,
      boolean primedHere) {
    this.ctx = ctx;
    this.primedHere = primedHere;
    this.requestId = tap == null ? requestId : null;
    this.clientReq = clientReq;
    this.upReq = upReq;
    this.upResp = upResp;
    this.tap = tap;
    this.buffer = b;
    this.parser = SseParser.create(this::onEvent, ctx.options().maxResponseBytes());
    boolean legacy = Era.ofHeader(clientReq.getHeader(HeaderNames.PROTOCOL_VERSION)) == Era.LEGACY;
    this.standalone = legacy && clientReq.method() == HttpMethod.GET;
    this.resumable = standalone || (legacy && clientReq.method() == HttpMethod.POST);
    // The standalone stream may rightly stay quiet for hours; every other one is bounded.
    this.broken =
        standalone
            ? BrokenAnswer.unlimited()
            : BrokenAnswer.watch(upResp, ctx.options().upstreamTimeout());
  }

  public static StreamBuffer start(
      ProxyContext ctx,
      HttpServerRequest clientReq,
      HttpClientRequest upReq,
      HttpClientResponse upResp,
      Relay.Mode mode,
      JsonNode requestId) {
    HttpServerResponse resp = clientReq.response();
    String session = upResp.getHeader(HeaderNames.SESSION_ID);
    if (session == null) {
      session = clientReq.getHeader(HeaderNames.SESSION_ID);
    }
    // A GET stream is the session's standalone stream: a client that reconnects to it without a
    // cursor is attached to it again (McpHandler) instead of opening a second one upstream.
    StreamBuffer b =
        clientReq.method() == HttpMethod.GET
            ? ctx.streams().openStandalone(session, owner(ctx, clientReq))
            : ctx.streams().open(session, owner(ctx, clientReq));
    SseRelay relay =
        new SseRelay(ctx, clientReq, upReq, upResp, mode.tap(), b, requestId, mode.priming());
    Relay.copyHead(upResp, resp, true);
    resp.setChunked(true);
    resp.headers().set("Cache-Control", "no-cache").set("X-Accel-Buffering", "no");
    ResponseSink sink =
        ResponseSink.of(resp, ctx.options().clients().maxUndeliveredBytes(), ctx.limitHits());
    if (mode.priming()) {
      resp.write(Buffer.buffer(SseWriter.priming(b.primingId(), -1)));
    } else {
      resp.writeHead();
    }
    b.attach(sink);
    relay.clientSink = sink;
    resp.closeHandler(
        v -> {
          b.detach(sink);
          if (mode.cancelOnClientClose() && !b.ended()) {
            if (mode.tap() != null) {
              mode.tap().onClientClosed();
            }
            relay.cancel();
          }
        });
    if (mode.tap() == null) {
      // Streams nobody captures are cancelled upstream when abandoned for too long.
      b.onCancel(relay::cancel);
    }
    relay.read(upResp);
    return b;
  }

  private void read(HttpClientResponse resp) {
    resp.handler(this::feed);
    resp.exceptionHandler(
        t -> {
          broken.done();
          oweAnError();
          broken("upstream stream broke: " + t.getClass().getSimpleName());
        });
    resp.endHandler(
        v -> {
          broken.done();
          upstreamEnd();
        });
  }

  /** Stops reading the upstream: resets the request in flight, and reconnects no more. */
  private void cancel() {
    cancelled = true;
    upReq.reset();
  }

  private void feed(Buffer chunk) {
    broken.heard();
    if (finished) {
      return;
    }
    if (reconnected && tap != null && tap.settled() && !answered) {
      // The call was settled meanwhile (upstream.timeout): stop polling for its answer.
      upReq.reset();
      broken("upstream answered no resumption in time");
      return;
    }
    byte[] bytes = chunk.getBytes();
    parser.feed(bytes, 0, bytes.length);
  }

  private void onEvent(SseEvent e) {
    if (finished) {
      return;
    }
    if (e.truncated()) {
      upReq.reset();
      broken("SSE event exceeds " + ctx.options().maxResponseBytes() + " bytes");
      return;
    }
    if (e.retry() >= 0) {
      retryMs = e.retry();
    }
    boolean priming = e.id() != null && !e.id().isEmpty() && !e.hasData();
    if (e.id() != null && !e.id().isEmpty() && !e.id().equals(upstreamId)) {
      upstreamId = e.id();
      resumes = 0;
    }
    upstreamPrimed |= priming;
    if (!e.hasData()) {
      // A priming event or a retry field: the client gets it under the sidecar's id, once the
      // sidecar did not prime the stream itself (the retry field always).
      if (e.retry() >= 0 || (priming && !primedHere && !primingRelayed)) {
        primingRelayed |= priming;
        SseEvent relayed = SseEvent.priming(null, e.retry());
        if (holding) {
          queue.addLast(relayed);
        } else {
          buffer.append(relayed, Delivery.NONE);
        }
      }
      return;
    }
    if (standalone) {
      resumes = 0; // a reopened standalone stream that brings events is alive
    }
    if (Notifications.isToolListChanged(ctx.json(), e.data())) {
      ctx.intake().catalogue().listChanged();
    }
    // Look for the answer only while something depends on it: resuming an upstream that gives
    // ids (only those can be resumed), or the error owed to a tapless call. One parse serves both.
    boolean forResume = resumable && !standalone && upstreamId != null && !answered;
    boolean forOwed = requestId != null && !requestAnswered;
    if ((forResume || forOwed) && RpcResponseWatcher.outcomeOf(e.data(), requestId) != null) {
      answered = true;
      requestAnswered = true;
    }
    SseEvent clean = new SseEvent(null, e.type(), e.data(), e.retry(), false);
    if (holding) {
      queue.addLast(clean);
      return;
    }
    process(clean);
  }

  private void process(SseEvent seen) {
    Future<Delivery> hold = tap == null || !seen.hasData() ? null : tap.onMessage(seen.data());
    byte[] shown = tap == null || !seen.hasData() ? null : tap.rewrite(seen.data());
    SseEvent e =
        shown == null || shown == seen.data()
            ? seen
            : new SseEvent(seen.id(), seen.type(), shown, seen.retry(), false);
    if (hold == null) {
      buffer.append(e, Delivery.NONE);
      return;
    }
    holding = true;
    upResp.pause();
    hold.onComplete(
        ar -> {
          Delivery d = ar.succeeded() && ar.result() != null ? ar.result() : Delivery.NONE;
          buffer.append(e, d);
          holding = false;
          while (!holding && !queue.isEmpty()) {
            process(queue.pollFirst());
          }
          if (!holding) {
            if (upstreamEnded) {
              endOrResume();
            } else {
              upResp.resume();
            }
          }
        });
  }

  private void upstreamEnd() {
    parser.end();
    upstreamEnded = true;
    if (!holding) {
      endOrResume();
    }
  }

  /**
   * The upstream stream ended cleanly: resume it if it left the answer owed (or it is the
   * standalone stream), else finish.
   */
  private void endOrResume() {
    if (standalone
        && openedAt != null
        && !ctx.clock().instant().isBefore(openedAt.plus(STAYED_OPEN))) {
      resumes = 0;
    }
    if (!resumable
        || (!standalone && (upstreamId == null || answered))
        || cancelled
        || finished
        || resumes >= MAX_RESUMES
        || (tap != null && tap.settled())) {
      finish(null);
      return;
    }
    resumes++;
    if (upstreamPrimed && (primingRelayed || primedHere) && !standalone && clientSink != null) {
      // The upstream declared SSE polling (a priming event, then a close mid-call): the client
      // got the priming cursor and the retry delay, so its stream ends too, as the upstream
      // meant; the relay goes on reading the upstream into the buffer, which the client resumes
      // with GET + Last-Event-ID (ResumeFlow).
      ResponseSink s = clientSink;
      clientSink = null;
      buffer.detach(s);
      s.end();
    }
    long delay = retryMs >= 0 ? retryMs : DEFAULT_RETRY_MS;
    delay = Math.min(delay, ctx.upstreamTimeoutMs());
    if (delay <= 0 || context == null) {
      reconnect();
    } else {
      context.owner().setTimer(delay, t -> reconnect());
    }
  }

  /**
   * GET upstream, with {@code Last-Event-ID} once the upstream gave an id; on a 200 SSE answer the
   * relay goes on reading from it.
   */
  private void reconnect() {
    if (cancelled || finished) {
      finish(null);
      return;
    }
    MultiMap headers = HttpHeaders.headers().setAll(clientReq.headers());
    headers.remove(HttpHeaders.CONTENT_TYPE);
    headers.set(HttpHeaders.ACCEPT, MediaTypes.SSE);
    if (upstreamId != null) {
      headers.set(HeaderNames.LAST_EVENT_ID, upstreamId);
    } else {
      headers.remove(HeaderNames.LAST_EVENT_ID);
    }
    // A standalone stream may stay quiet for long, as the one it replaces could (no idle limit);
    // a call's stream is bounded by the upstream timeout like the POST it continues.
    Upstream upstream = ctx.upstream();
    (standalone
            ? upstream.openStream(HttpMethod.GET, clientReq.query(), headers)
            : upstream.open(HttpMethod.GET, clientReq.query(), headers, ctx.upstreamTimeoutMs()))
        .compose(
            req -> {
              upReq = req;
              return req.send();
            })
        .onComplete(
            ar -> {
              if (ar.failed()) {
                endOrResume();
                return;
              }
              HttpClientResponse resp = ar.result();
              boolean sse = MediaTypes.isSse(resp.getHeader(HttpHeaders.CONTENT_TYPE));
              if (resp.statusCode() != 200 || !sse || cancelled) {
                // Refused (an unknown id, a session gone): nothing more will come.
                resp.request().reset();
                finish(null);
                return;
              }
              upResp = resp;
              broken.continuedBy(resp.request());
              openedAt = ctx.clock().instant();
              upstreamEnded = false;
              reconnected = true;
              parser = SseParser.create(this::onEvent, ctx.options().maxResponseBytes());
              read(resp);
            });
  }

  /**
   * The upstream stream broke: if the client's request is still unanswered, append the error that
   * ends its stream (after what the upstream sent before).
   */
  private void oweAnError() {
    if (requestId == null || requestAnswered || finished || cancelled) {
      return;
    }
    requestAnswered = true;
    // Without a tap nothing is held back: the error follows what was relayed.
    buffer.append(SseEvent.message(ToolResults.error(requestId, broken.error())), Delivery.NONE);
  }

  private void broken(String reason) {
    upstreamEnded = true;
    queue.clear();
    if (!holding) {
      finish(reason);
    } else {
      finished = true;
      if (tap != null) {
        tap.onFailure(reason);
      }
      buffer.end();
    }
  }

  private void finish(String failure) {
    if (finished) {
      return;
    }
    finished = true;
    // The tap goes first: it may append a last event (an error for an unanswered call).
    if (tap != null) {
      tap.ended(failure);
    }
    buffer.end();
  }

  /** The actor the stream opened by {@code req} is bound to. */
  static String owner(ProxyContext ctx, HttpServerRequest req) {
    return ctx.admission().ownerOf(new RequestHeaders(req));
  }
}
