package dev.tally.sidecar.internal.sse;

import java.nio.charset.StandardCharsets;

/**
 * One dispatched Server-Sent Event.
 *
 * @param id the {@code id} field, or {@code null} if the event had none
 * @param type the {@code event} field, or {@code null} for the default {@code message}
 * @param data the joined {@code data} lines as UTF-8 bytes (lines separated by LF)
 * @param retry the {@code retry} field in milliseconds, or {@code -1}
 */
public record SseEvent(String id, String type, byte[] data, long retry) {

  /** An event with data only. */
  public static SseEvent data(byte[] data) {
    return new SseEvent(null, null, data, -1);
  }

  /** The data decoded as UTF-8. */
  public String dataString() {
    return new String(data, StandardCharsets.UTF_8);
  }

  /** This event under another id. */
  public SseEvent withId(String newId) {
    return new SseEvent(newId, type, data, retry);
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
