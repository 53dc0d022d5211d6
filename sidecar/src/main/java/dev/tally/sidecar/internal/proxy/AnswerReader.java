package dev.tally.sidecar.internal.proxy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.mcp.RpcResponseWatcher;
import dev.tally.sidecar.internal.sse.SseException;
import dev.tally.sidecar.internal.sse.SseParser;
import dev.tally.sidecar.internal.stream.Delivery;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpHeaders;

/**
 * Reads an upstream response to one request of a split batch (JSON or SSE, bounded by {@code
 * upstream.maxResponseBytes}) and finds the message answering it; nothing is relayed to the client.
 * Other messages on the stream (progress notifications, server-to-client requests) are dropped: a
 * merged batch answer has no place for them (docs/tool-results.md, "Batches").
 */
final class AnswerReader {
  private final Proxy proxy;
  private final HttpClientResponse upResp;
  private final JsonNode id;
  private final MessageTap tap;
  private final Promise<BatchAnswer> answer = Promise.promise();
  private boolean answered;
  private boolean finished;

  private AnswerReader(Proxy proxy, HttpClientResponse upResp, JsonNode id, MessageTap tap) {
    this.proxy = proxy;
    this.upResp = upResp;
    this.id = id;
    this.tap = tap;
  }

  /**
   * Reads {@code upResp}. With a {@code tap} (a dispatched call) the tap decides which message is
   * the answer (it returns a future for it) and records the outcome; without one the message whose
   * id is {@code id} is the answer. The future holds {@code null} when the response ended or broke
   * without an answer.
   */
  static Future<BatchAnswer> read(
      Proxy proxy, HttpClientResponse upResp, JsonNode id, MessageTap tap) {
    AnswerReader r = new AnswerReader(proxy, upResp, id, tap);
    r.start();
    return r.answer.future();
  }

  private void start() {
    boolean sse =
        MediaTypes.SSE.equals(MediaTypes.essence(upResp.getHeader(HttpHeaders.CONTENT_TYPE)));
    if (tap != null) {
      tap.onHead(upResp.statusCode(), sse);
    }
    int limit = proxy.options.maxResponseBytes();
    upResp.exceptionHandler(
        t -> finish("upstream connection broke: " + t.getClass().getSimpleName()));
    if (sse) {
      SseParser parser =
          SseParser.create(
              e -> {
                if (e.data().length > 0) {
                  onMessage(e.data());
                }
              },
              limit);
      upResp.handler(
          chunk -> {
            if (finished) {
              return;
            }
            try {
              byte[] bytes = chunk.getBytes();
              parser.feed(bytes, 0, bytes.length);
            } catch (SseException e) {
              upResp.request().reset();
              finish(e.getMessage());
            }
          });
      upResp.endHandler(
          v -> {
            if (!finished) {
              parser.end();
            }
            finish(null);
          });
      return;
    }
    Buffer body = Buffer.buffer();
    upResp.handler(
        chunk -> {
          if (finished) {
            return;
          }
          if (body.length() + chunk.length() > limit) {
            upResp.request().reset();
            finish("upstream answer exceeds " + limit + " bytes");
            return;
          }
          body.appendBuffer(chunk);
        });
    upResp.endHandler(
        v -> {
          if (!finished && body.length() > 0) {
            onMessage(body.getBytes());
          }
          finish(null);
        });
  }

  private void onMessage(byte[] message) {
    if (answered) {
      return;
    }
    if (tap == null) {
      if (id != null && RpcResponseWatcher.outcomeOf(message, id) != null) {
        answered = true;
        answer.tryComplete(BatchAnswer.of(message));
      }
      return;
    }
    Future<Delivery> hold = tap.onMessage(message);
    if (hold == null) {
      return;
    }
    answered = true;
    hold.onComplete(
        ar -> {
          Delivery d = ar.succeeded() && ar.result() != null ? ar.result() : Delivery.NONE;
          answer.tryComplete(new BatchAnswer(message, d));
        });
  }

  private void finish(String failure) {
    if (finished) {
      return;
    }
    finished = true;
    if (tap != null) {
      tap.ended(failure);
    }
    if (!answered) {
      answer.tryComplete(null);
    }
  }
}
