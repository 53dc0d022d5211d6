package dev.tally.core.mcp;

/**
 * One Server-Sent Event as dispatched by {@link SseParser}.
 *
 * @param id the last {@code id:} seen on the stream (the SSE "last event ID"), or {@code null}
 * @param event the {@code event:} type, or {@code null} for the default {@code message}
 * @param data the data lines joined by {@code \n}
 * @param truncated the event's data exceeded the parser's limit and was cut
 */
public record SseEvent(String id, String event, String data, boolean truncated) {

  /** The event's type, {@code message} when none was given. */
  public String type() {
    return event == null || event.isEmpty() ? "message" : event;
  }

  @Override
  public String toString() {
    return "SseEvent[id=" + id + ", event=" + type() + ", " + data.length() + " chars]";
  }
}
