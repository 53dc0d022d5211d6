package dev.tally.core.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.core.execution.RpcError;
import java.io.IOException;
import java.util.Arrays;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Watches the bytes of one HTTP response as they pass and reports the JSON-RPC response to one
 * request, without holding back or changing a byte. For {@code text/event-stream} the outcome is
 * reported as soon as the event carrying it is complete; for {@code application/json} at {@link
 * #end()}. Not thread-safe; one watcher per response.
 *
 * <p>Only a message without {@code method} and with {@code result} or {@code error} whose {@code
 * id} equals the request's counts (numbers compare by value), so notifications and server-to-client
 * requests on the same stream are passed over.
 */
public final class RpcResponseWatcher {
  /** The input-required marker of MRTR results. */
  public static final String INPUT_REQUIRED = "input_required";

  private final JsonNode expectedId;
  private final Consumer<RpcOutcome> onOutcome;
  private final SseParser sse;
  private final int maxBytes;
  private byte[] json;
  private int jsonLen;
  private boolean overflowed;
  private RpcOutcome outcome;

  private RpcResponseWatcher(
      JsonNode expectedId, Consumer<RpcOutcome> onOutcome, boolean sse, int maxBytes) {
    this.expectedId = expectedId;
    this.onOutcome = onOutcome;
    this.maxBytes = maxBytes;
    this.sse = sse ? SseParser.create(this::onEvent, maxBytes) : null;
    this.json = sse ? null : new byte[1024];
  }

  /**
   * A watcher for a response of {@code contentType}, or {@code null} if it is neither JSON nor an
   * event stream (nothing to watch). {@code expectedId} {@code null} accepts any response id.
   */
  public static RpcResponseWatcher forContentType(
      String contentType, JsonNode expectedId, int maxBytes, Consumer<RpcOutcome> onOutcome) {
    Objects.requireNonNull(onOutcome, "onOutcome");
    if (maxBytes <= 0) {
      throw new IllegalArgumentException("maxBytes: " + maxBytes + " (expected: > 0)");
    }
    String mt = MediaTypes.essence(contentType);
    if (mt.equals(MediaTypes.SSE)) {
      return new RpcResponseWatcher(expectedId, onOutcome, true, maxBytes);
    }
    if (mt.equals(MediaTypes.JSON) || mt.endsWith("+json")) {
      return new RpcResponseWatcher(expectedId, onOutcome, false, maxBytes);
    }
    return null;
  }

  /** Bytes of the response body, in order. */
  public void feed(byte[] b, int off, int len) {
    if (outcome != null) {
      return;
    }
    if (sse != null) {
      sse.feed(b, off, len);
      return;
    }
    if (overflowed) {
      return;
    }
    if (jsonLen + len > maxBytes) {
      overflowed = true;
      json = null;
      return;
    }
    if (jsonLen + len > json.length) {
      json = Arrays.copyOf(json, Math.min(maxBytes, Math.max(json.length * 2, jsonLen + len)));
    }
    System.arraycopy(b, off, json, jsonLen, len);
    jsonLen += len;
  }

  /** The body ended. A JSON body is examined now. */
  public void end() {
    if (outcome != null) {
      return;
    }
    if (sse != null) {
      sse.end();
      return;
    }
    if (!overflowed && jsonLen > 0) {
      examine(json, jsonLen);
    }
    json = null;
  }

  /** The outcome, or {@code null} if none was seen (yet). */
  public RpcOutcome outcome() {
    return outcome;
  }

  /** The body (or one event) exceeded the watcher's limit, so an outcome may have been missed. */
  public boolean overflowed() {
    return overflowed;
  }

  private void onEvent(SseEvent e) {
    if (outcome != null) {
      return;
    }
    if (e.truncated()) {
      overflowed = true;
      return;
    }
    if (!e.typeOrDefault().equals("message") || !e.hasData()) {
      return;
    }
    examine(e.data(), e.data().length);
  }

  private void examine(byte[] b, int len) {
    RpcOutcome o = outcomeOf(b, len, expectedId);
    if (o != null) {
      outcome = o;
      onOutcome.accept(o);
    }
  }

  /**
   * The outcome that one complete JSON-RPC message (UTF-8, e.g. one SSE event's data or a JSON
   * body) reports for the request {@code expectedId}, or {@code null} when it is not that request's
   * response: another id, a request or notification, malformed JSON. For callers that frame the
   * messages themselves (the sidecar re-frames SSE); {@code expectedId} {@code null} accepts any
   * response id.
   */
  public static RpcOutcome outcomeOf(byte[] message, JsonNode expectedId) {
    return outcomeOf(message, message.length, expectedId);
  }

  private static RpcOutcome outcomeOf(byte[] b, int len, JsonNode expectedId) {
    try {
      ResponseReader.Message m = ResponseReader.read(b, len);
      if (m != null && m.resultStart() >= 0) {
        return toOutcome(
            m, Arrays.copyOfRange(b, m.resultStart(), m.resultEnd()), null, expectedId);
      }
      return toOutcome(
          m,
          null,
          m == null || m.dataStart() < 0 ? null : Arrays.copyOfRange(b, m.dataStart(), m.dataEnd()),
          expectedId);
    } catch (IOException | RuntimeException ex) {
      // Not JSON, or not JSON-RPC: not the answer.
      return null;
    }
  }

  private static RpcOutcome toOutcome(
      ResponseReader.Message m, byte[] result, byte[] data, JsonNode expectedId) {
    if (m == null || m.hasMethod() || !sameId(expectedId, m.id())) {
      return null;
    }
    RpcOutcome o;
    if (result != null) {
      o = new RpcOutcome.Result(result, m.isError(), INPUT_REQUIRED.equals(m.resultType()));
    } else if (m.error() != null && m.error().isObject()) {
      JsonNode code = m.error().get("code");
      JsonNode message = m.error().get("message");
      o =
          new RpcOutcome.Error(
              new RpcError(
                  code != null && code.canConvertToInt() ? code.intValue() : -32603,
                  message != null && message.isTextual() ? message.textValue() : ""),
              data);
    } else {
      return null;
    }
    return o;
  }

  /** JSON-RPC ids compare by value: {@code 1} and {@code 1.0} are the same id. */
  public static boolean sameId(JsonNode expected, JsonNode actual) {
    if (expected == null) {
      return true;
    }
    if (actual == null) {
      return false;
    }
    if (expected.isNumber() && actual.isNumber()) {
      return expected.decimalValue().compareTo(actual.decimalValue()) == 0;
    }
    return expected.equals(actual);
  }
}
