package dev.tally.sidecar.internal.relay;

import dev.tally.core.mcp.MediaTypes;
import dev.tally.core.mcp.SseParser;
import dev.tally.core.mcp.TallyError;
import dev.tally.sidecar.internal.upstream.BrokenAnswer;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpHeaders;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * Reads an upstream response as whole JSON-RPC messages, bounded by {@code
 * upstream.maxResponseBytes}: a JSON body is one message, each SSE event with data one more (core's
 * {@link SseParser}). For answers that are taken whole rather than streamed: a JSON answer a tap
 * must see before the client does ({@link Relay}), and the answer to one element of a batch.
 */
public final class MessageReader {
  private MessageReader() {}

  /** What a reader reports. Called on the response's context, in order. */
  public interface Sink {
    /** One message; for a JSON body, the whole body. */
    void message(byte[] message);

    /** The response ended; {@code failure} says why it broke off, or is {@code null}. */
    void end(Failure failure);
  }

  /**
   * Why a response broke off: a reason for the record and the error for the client.
   *
   * @param reason what happened, for the execution's record (no content)
   * @param error what the client is told
   */
  public record Failure(String reason, TallyError error) {}

  /**
   * Reads {@code resp}; {@code limit} bounds the body (JSON) or one event (SSE), {@code
   * silenceLimit} the time without a byte ({@code upstream.timeout}, timed from now: {@link
   * BrokenAnswer}).
   */
  public static void read(HttpClientResponse resp, int limit, Duration silenceLimit, Sink sink) {
    boolean sse = MediaTypes.isSse(resp.getHeader(HttpHeaders.CONTENT_TYPE));
    BrokenAnswer broken = BrokenAnswer.watch(resp, silenceLimit);
    boolean[] done = {false};
    Consumer<Failure> finish =
        f -> {
          broken.done();
          if (!done[0]) {
            done[0] = true;
            sink.end(f);
          }
        };
    resp.exceptionHandler(
        t -> {
          TallyError error = broken.error();
          finish.accept(
              new Failure(
                  error.code() == TallyError.Code.UPSTREAM_TIMEOUT
                      ? "upstream answer stalled"
                      : "upstream connection broke: " + t.getClass().getSimpleName(),
                  error));
        });
    Failure tooLarge =
        new Failure(
            "upstream answer exceeds " + limit + " bytes",
            TallyError.of(
                TallyError.Code.UPSTREAM_UNAVAILABLE,
                "the upstream answer exceeds upstream.maxResponseBytes (" + limit + ")"));
    if (sse) {
      SseParser parser =
          SseParser.create(
              e -> {
                if (done[0]) {
                  return;
                }
                if (e.truncated()) {
                  resp.request().reset();
                  finish.accept(tooLarge);
                } else if (e.hasData()) {
                  sink.message(e.data());
                }
              },
              limit);
      resp.handler(
          chunk -> {
            broken.heard();
            if (!done[0]) {
              byte[] bytes = chunk.getBytes();
              parser.feed(bytes, 0, bytes.length);
            }
          });
      resp.endHandler(
          v -> {
            parser.end();
            finish.accept(null);
          });
      return;
    }
    Buffer body = Buffer.buffer();
    resp.handler(
        chunk -> {
          broken.heard();
          if (done[0]) {
            return;
          }
          if (body.length() + chunk.length() > limit) {
            resp.request().reset();
            finish.accept(tooLarge);
            return;
          }
          body.appendBuffer(chunk);
        });
    resp.endHandler(
        v -> {
          if (done[0]) {
            return;
          }
          if (body.length() > 0) {
            sink.message(body.getBytes());
          }
          finish.accept(null);
        });
  }
}
