package dev.tally.core.fingerprint;

/** A key could not be loaded or is unfit for use. Messages never contain key material. */
public final class KeyException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public KeyException(String message) {
    super(message);
  }

  public KeyException(String message, Throwable cause) {
    super(message, cause);
  }
}
