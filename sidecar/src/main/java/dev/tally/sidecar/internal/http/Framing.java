package dev.tally.sidecar.internal.http;

import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import java.util.List;
import java.util.Locale;

/**
 * RFC 9112 message framing, checked before a request is handled. The HTTP decoder reads a request
 * that carries {@code Transfer-Encoding} as chunked and drops its {@code Content-Length}; a front
 * proxy may have read the same bytes by the length, so a second request can hide in the body
 * (smuggling, §6.1). Therefore: a {@code Transfer-Encoding} other than exactly {@code chunked} is
 * refused (§6.3: chunked must be the final coding, and Tally decodes no other), as is {@code
 * Transfer-Encoding} beside {@code Content-Length} or on HTTP/1.0; a chunked request is answered
 * and its connection closed, never kept alive.
 */
public final class Framing {
  private Framing() {}

  /** Why {@code req}'s framing is refused, or {@code null}. */
  public static String problem(HttpServerRequest req) {
    if (req.version() != HttpVersion.HTTP_1_1 && req.version() != HttpVersion.HTTP_1_0) {
      return null; // HTTP/2 frames its own messages
    }
    List<String> te = req.headers().getAll(HttpHeaders.TRANSFER_ENCODING);
    if (te.isEmpty()) {
      return null;
    }
    if (req.version() == HttpVersion.HTTP_1_0) {
      return "Transfer-Encoding on an HTTP/1.0 request (RFC 9112 §6.1)";
    }
    if (te.size() != 1 || !te.get(0).trim().toLowerCase(Locale.ROOT).equals("chunked")) {
      return "Transfer-Encoding other than exactly \"chunked\" (RFC 9112 §6.3: chunked must be the"
          + " final coding, and no other coding is accepted)";
    }
    if (req.headers().contains(HttpHeaders.CONTENT_LENGTH)) {
      return "both Content-Length and Transfer-Encoding (RFC 9112 §6.1)";
    }
    return null;
  }

  /** Whether {@code req}'s connection must close after the answer (it was sent chunked). */
  public static boolean closeAfter(HttpServerRequest req) {
    return req.version() == HttpVersion.HTTP_1_1
        && req.headers().contains(HttpHeaders.TRANSFER_ENCODING);
  }

  /**
   * Announces that the connection closes after this answer: {@code Connection: close} on HTTP/1.x;
   * nothing on HTTP/2, where that header is illegal (RFC 9113 §8.2.2) and one stream's end does not
   * end the connection.
   */
  public static void announceClose(HttpServerRequest req) {
    if (req.version() != HttpVersion.HTTP_2) {
      req.response().headers().set(HttpHeaders.CONNECTION, "close");
    }
  }
}
