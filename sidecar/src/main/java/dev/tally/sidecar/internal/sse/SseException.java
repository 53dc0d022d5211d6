package dev.tally.sidecar.internal.sse;

/** An event stream broke a limit or could not be read. Carries no stream content. */
public final class SseException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public SseException(String message) {
    super(message, null, false, false);
  }
}
