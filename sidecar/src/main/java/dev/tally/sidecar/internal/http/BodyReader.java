package dev.tally.sidecar.internal.http;

import dev.tally.core.mcp.TallyError;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;

/**
 * Reads a request body up to a limit. Over the limit (by {@code Content-Length} or while reading)
 * the client gets 413 and the connection is closed once the rest of the body was read and dropped
 * ({@link Lingering}); the future then fails.
 */
public final class BodyReader {
  private BodyReader() {}

  public static Future<Buffer> read(HttpServerRequest req, int limit) {
    Promise<Buffer> done = Promise.promise();
    String declared = req.getHeader(HttpHeaders.CONTENT_LENGTH);
    if (declared != null) {
      long n;
      try {
        n = Long.parseLong(declared.trim());
      } catch (NumberFormatException e) {
        n = -1;
      }
      if (n > limit) {
        tooLarge(req, limit);
        done.fail("too large");
        return done.future();
      }
    }
    Buffer body =
        Buffer.buffer(declared != null ? Math.max(0, Math.min(limit, parse(declared))) : 512);
    // Over the limit, tooLarge hands the request to Lingering, whose handlers replace these.
    req.handler(
        chunk -> {
          if (body.length() + chunk.length() > limit) {
            tooLarge(req, limit);
            done.tryFail("too large");
            return;
          }
          body.appendBuffer(chunk);
        });
    req.exceptionHandler(t -> done.tryFail(t));
    req.endHandler(v -> done.tryComplete(body));
    return done.future();
  }

  private static int parse(String declared) {
    try {
      return (int) Math.min(Integer.MAX_VALUE, Long.parseLong(declared.trim()));
    } catch (NumberFormatException e) {
      return 512;
    }
  }

  private static void tooLarge(HttpServerRequest req, int limit) {
    req.response().headers().set(HttpHeaders.CONNECTION, "close");
    Future<Void> answered =
        Replies.refuse(
            req.response(),
            null,
            TallyError.Code.PAYLOAD_TOO_LARGE,
            "request body exceeds limits.maxRequestBytes (" + limit + " bytes)");
    Lingering.drainThenClose(req, answered);
  }
}
