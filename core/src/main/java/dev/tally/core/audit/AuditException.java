package dev.tally.core.audit;

import java.util.Objects;

/**
 * The audit journals cannot be opened or written. {@link #code()} says what happened. Messages name
 * files, byte offsets and sequence numbers, never entry contents or key material.
 */
public final class AuditException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Coded failures of the audit journals. */
  public enum Code {
    /** Another writer holds the directory's lock. */
    LOCKED,
    /** Reading or writing a file failed; the journal refuses further entries until reopened. */
    IO,
    /** An existing journal does not verify from its last checkpoint on; it is never extended. */
    CORRUPT,
    /** The signing key is missing, unreadable, too widely readable or does not match. */
    KEY,
    /** The journals were closed. */
    CLOSED
  }

  private final Code code;

  public AuditException(Code code, String message) {
    this(code, message, null);
  }

  public AuditException(Code code, String message, Throwable cause) {
    super(message, cause);
    this.code = Objects.requireNonNull(code, "code");
  }

  public Code code() {
    return code;
  }
}
