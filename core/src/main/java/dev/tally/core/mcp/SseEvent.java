package dev.tally.core.mcp;

import java.nio.charset.StandardCharsets;

/**
 * One Server-Sent Event, as {@link SseParser} dispatches it and {@link SseWriter} writes it.
 *
 * @param id this event's {@code id} field, or {@code null} if it had none (an empty id is the empty
 *     string: it resets the client's cursor)
 * @param type the {@code event} field, or {@code null} for the default {@code message}
 * @param data the joined {@code data} lines as UTF-8 bytes (lines separated by LF); empty when the
 *     event had no data (a priming or {@code retry}-only event)
 * @param retry the {@code retry} field in milliseconds, or {@code -1}
 * @param truncated the event's data exceeded the parser's limit and was dropped ({@code data} is
 *     then empty): an observer may have missed a message
 */
public record SseEvent(String id, String type, byte[] data, long retry, boolean truncated) {
  private static final byte[] NONE = new byte[0];

  /** An event with data only. */
  public static SseEvent data(byte[] data) {
    return new SseEvent(null, null, data, -1, false);
  }

  /** A JSON-RPC message as MCP servers send it: {@code event: message} and its data. */
  public static SseEvent message(byte[] json) {
    return new SseEvent(null, "message", json, -1, false);
  }

  /** A priming event: an id and no data, so a client has a cursor before the first message. */
  public static SseEvent priming(String id, long retry) {
    return new SseEvent(id, null, NONE, retry, false);
  }

  /** Whether the event carries a message (data that is not empty). */
  public boolean hasData() {
    return data.length > 0;
  }

  /** The event's type, {@code message} when none was given. */
  public String typeOrDefault() {
    return type == null || type.isEmpty() ? "message" : type;
  }

  /** The data decoded as UTF-8. */
  public String dataString() {
    return new String(data, StandardCharsets.UTF_8);
  }

  /** This event under another id. */
  public SseEvent withId(String newId) {
    return new SseEvent(newId, type, data, retry, truncated);
  }

  @Override
  public boolean equals(Object o) {
    return this == o;
  }

  @Override
  public int hashCode() {
    return System.identityHashCode(this);
  }

  @Override
  public String toString() {
    return "SseEvent[id=" + id + " type=" + type + " " + data.length + " bytes]";
  }
}
