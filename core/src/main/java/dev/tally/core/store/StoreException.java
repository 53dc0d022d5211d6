package dev.tally.core.store;

/** A store operation failed. The {@link Code} says what happened and whether to retry. */
public final class StoreException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Coded failures of a store. */
  public enum Code {
    /** Compare-and-set lost: the record moved on. Re-read and decide again. */
    STALE_VERSION(false),
    /** No such record. */
    NOT_FOUND(false),
    /** The store cannot write now (disk, database outage). Refuse the call; retryable. */
    UNAVAILABLE(true),
    /** The store is closed. */
    CLOSED(false),
    /** The store's data is inconsistent with the request (a bug or a corrupt record). */
    CORRUPT(false);

    private final boolean retryable;

    Code(boolean retryable) {
      this.retryable = retryable;
    }

    public boolean retryable() {
      return retryable;
    }
  }

  private final Code code;

  public StoreException(Code code, String message) {
    this(code, message, null);
  }

  public StoreException(Code code, String message, Throwable cause) {
    // Expected outcomes on the hot path (stale version, not found) carry no stack trace.
    super(message, cause, false, code == Code.UNAVAILABLE || code == Code.CORRUPT);
    this.code = code;
  }

  public Code code() {
    return code;
  }
}
