package dev.tally.sidecar.internal.http;

import dev.tally.core.mcp.TallyError;
import dev.tally.sidecar.LimitHits;
import dev.tally.sidecar.LimitHits.Limit;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import java.time.Duration;

/**
 * Reads a request body within its limits. The buffer grows with the bytes received, never with the
 * {@code Content-Length} declared (a declared length costs nothing until its bytes arrive), and
 * every byte is reserved from the port's {@link BodyBudget} first. Over {@code limit} (declared or
 * received) the client gets 413, over the budget 503 {@code OVERLOADED}, after {@code timeout}
 * without the whole body 408; each time the connection is closed once the rest of the body was read
 * and dropped ({@link Lingering}), and the future fails.
 */
public final class BodyReader {
  /** What a body read is held to. */
  public record Limits(
      int maxBytes, Duration timeout, BodyBudget budget, LimitHits hits, LimitHits.Port port) {}

  private static final int FIRST_CAPACITY = 1024;

  private BodyReader() {}

  /**
   * Reads {@code req}'s body; {@code hold} keeps the reservation until the caller releases it, and
   * {@code turn} (the request's on its connection) watches the timeout.
   */
  public static Future<Buffer> read(
      HttpServerRequest req, Limits limits, BodyBudget.Hold hold, ConnectionGuard.Turn turn) {
    Promise<Buffer> done = Promise.promise();
    int limit = limits.maxBytes();
    String declared = req.getHeader(HttpHeaders.CONTENT_LENGTH);
    if (declared != null) {
      long n;
      try {
        n = Long.parseLong(declared.trim());
      } catch (NumberFormatException e) {
        n = -1;
      }
      if (n > limit) {
        limits.hits().hit(limits.port(), Limit.REQUEST_BYTES);
        refuse(
            req,
            TallyError.Code.PAYLOAD_TOO_LARGE,
            "request body exceeds limits.maxRequestBytes (" + limit + " bytes)");
        done.fail("too large");
        return done.future();
      }
    }
    Chunks body = new Chunks();
    Runnable expired =
        () -> {
          if (done.future().isComplete()) {
            return;
          }
          limits.hits().hit(limits.port(), Limit.BODY_TIMEOUT);
          refuse(
              req,
              TallyError.Code.REQUEST_TIMEOUT,
              "request body not received whole within sidecar.requestBodyTimeout ("
                  + limits.timeout().toMillis()
                  + " ms)");
          done.tryFail("timeout");
        };
    Runnable stopTimer =
        turn.watchBody(limits.timeout().toMillis(), expired)
            ? turn::bodyRead
            : ownTimer(limits.timeout().toMillis(), expired, done.future());
    // Over a limit, refuse hands the request to Lingering, whose handlers replace these.
    req.handler(
        chunk -> {
          if (done.future().isComplete()) {
            return;
          }
          if (body.length() + chunk.length() > limit) {
            stopTimer.run();
            limits.hits().hit(limits.port(), Limit.REQUEST_BYTES);
            refuse(
                req,
                TallyError.Code.PAYLOAD_TOO_LARGE,
                "request body exceeds limits.maxRequestBytes (" + limit + " bytes)");
            done.tryFail("too large");
            return;
          }
          if (!hold.reserve(chunk.length())) {
            stopTimer.run();
            limits.hits().hit(limits.port(), Limit.BUFFERED_BYTES);
            refuse(
                req,
                TallyError.Code.OVERLOADED,
                "too many request bytes are buffered at once (sidecar.maxBufferedRequestBytes: "
                    + limits.budget().max()
                    + " bytes); retry later");
            done.tryFail("overloaded");
            return;
          }
          body.add(chunk);
        });
    req.exceptionHandler(
        t -> {
          stopTimer.run();
          done.tryFail(t);
        });
    req.endHandler(
        v -> {
          stopTimer.run();
          done.tryComplete(body.buffer());
        });
    return done.future();
  }

  /**
   * A timer of the body's own, for a connection that cannot watch it ({@link
   * ConnectionGuard.Turn#watchBody}): armed once the bytes already read were handled, since a body
   * that came with its head has ended by then and needs none. Returns what stops it.
   */
  private static Runnable ownTimer(long ms, Runnable expired, Future<Buffer> done) {
    Context context = Vertx.currentContext();
    long[] timer = {-1};
    context.runOnContext(
        v -> {
          if (!done.isComplete()) {
            timer[0] = context.owner().setTimer(ms, t -> expired.run());
          }
        });
    return () -> {
      if (timer[0] >= 0) {
        context.owner().cancelTimer(timer[0]);
        timer[0] = -1;
      }
    };
  }

  /**
   * The chunks of one body. A body that came as one chunk (most do) is that chunk, not copied:
   * Vert.x hands each chunk over as a heap buffer of its own, safe to keep. A second chunk starts a
   * buffer that grows with the bytes received.
   */
  private static final class Chunks {
    private Buffer first;
    private Buffer grown;

    int length() {
      return grown != null ? grown.length() : first != null ? first.length() : 0;
    }

    void add(Buffer chunk) {
      if (grown != null) {
        grown.appendBuffer(chunk);
      } else if (first == null) {
        first = chunk;
      } else {
        grown = Buffer.buffer(Math.max(FIRST_CAPACITY, 2 * (first.length() + chunk.length())));
        grown.appendBuffer(first).appendBuffer(chunk);
        first = null;
      }
    }

    Buffer buffer() {
      return grown != null ? grown : first != null ? first : Buffer.buffer(0);
    }
  }

  private static void refuse(HttpServerRequest req, TallyError.Code code, String message) {
    Framing.announceClose(req);
    Future<Void> answered = Replies.refuse(req.response(), null, code, message);
    Lingering.drainThenClose(req, answered);
  }
}
