package dev.tally.sidecar.internal.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.call.CallReply;
import dev.tally.core.mcp.MediaTypes;
import dev.tally.core.mcp.TallyError;
import dev.tally.core.mcp.ToolResults;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerResponse;

/** Writes Tally's own JSON answers (bytes from core: {@link ToolResults}, {@link CallReply}). */
public final class Replies {
  public static final CharSequence JSON = HttpHeaders.createOptimized(MediaTypes.JSON);
  public static final CharSequence EVENT_STREAM = HttpHeaders.createOptimized(MediaTypes.SSE);

  private Replies() {}

  /** A refusal: the code's HTTP status and a JSON-RPC error body. */
  public static Future<Void> refuse(
      HttpServerResponse resp, JsonNode id, TallyError.Code code, String msg) {
    return refuse(resp, id, TallyError.of(code, msg));
  }

  public static Future<Void> refuse(HttpServerResponse resp, JsonNode id, TallyError error) {
    return json(resp, error.code().httpStatus(), ToolResults.error(id, error));
  }

  /** A refusal core decided: its HTTP status and JSON-RPC error. */
  public static Future<Void> refuse(HttpServerResponse resp, CallReply.Refusal r) {
    return json(resp, r.httpStatus(), r.message());
  }

  /** A complete JSON response, unless the response was already started or closed. */
  public static Future<Void> json(HttpServerResponse resp, int status, byte[] body) {
    if (resp.headWritten() || resp.ended() || resp.closed()) {
      return Future.failedFuture("response already started or closed");
    }
    resp.setStatusCode(status);
    resp.headers().set(HttpHeaders.CONTENT_TYPE, JSON);
    return resp.end(Buffer.buffer(body));
  }
}
